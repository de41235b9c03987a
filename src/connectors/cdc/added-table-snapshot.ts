import type { CdcCatalog, CdcDialect, CdcReaderSession, CdcTable } from './cdc-dialect.ts';
import type { AddingTable, SnapshotSplit } from './cdc-split.ts';
import type { CdcRecordSource } from './change-record.ts';
import type { CdcTableSchema } from './schema-change.ts';
import { nextChunk, planTable, type TablePlan } from './chunk-splitter.ts';
import { readChunk, type ChunkResult } from './snapshot-chunk-reader.ts';

/**
 * One step of an added table's snapshot: a chunk read (its rows as of `result.high`; the table's
 * first chunk in this run with its schema as the catalog had it before the read), or the table gone.
 */
export type AddedTableStep<P> =
  | { readonly kind: 'chunk'; readonly plan: TablePlan; readonly split: SnapshotSplit; readonly result: ChunkResult<P>; readonly schema?: CdcTableSchema }
  | { readonly kind: 'gone'; readonly db: string; readonly table: string; readonly why: string };

/**
 * The log reader's snapshots of tables added later (scanNewlyAddedTables): cuts an added table
 * into chunks with a catalog of its own and reads each with the initial snapshot's LOW/HIGH
 * algorithm on the reader's session. The reader emits a chunk in the same poll in which its log
 * follower learns the chunk's HIGH, so the chunk's rows go out on the log's channel before any
 * later change of their keys.
 */
export class AddedTableSnapshot<P, S extends CdcRecordSource> {
  readonly #dialect: CdcDialect<P, S>;
  readonly #session: CdcReaderSession<P, S>;
  readonly #readers: number;
  #catalog: Promise<CdcCatalog<P>> | undefined;

  constructor(dialect: CdcDialect<P, S>, session: CdcReaderSession<P, S>, readers: number) {
    this.#dialect = dialect;
    this.#session = session;
    this.#readers = readers;
  }

  /** The captured tables now (the dialect's discoverTables). */
  async discover(): Promise<CdcTable[]> {
    const catalog = await this.#connect();
    return (await catalog.discoverTables?.()) ?? [];
  }

  /**
   * Plans `t` if it is not yet (making the server log it for the source), then cuts and reads its
   * next chunk, merging the log from `mergeFrom` if that is before its LOW (any position before
   * the SELECT will do: the merge is idempotent).
   */
  async step(t: AddingTable, mergeFrom?: P): Promise<AddedTableStep<P>> {
    const catalog = await this.#connect();
    const o = this.#dialect.chunking!;
    let plan = t.plan;
    let schema: CdcTableSchema | undefined;
    if (plan === null) {
      const found = (await catalog.discoverTables?.())?.find((x) => x.db === t.db && x.table === t.table);
      if (!found) return { kind: 'gone', db: t.db, table: t.table, why: 'it no longer exists or no longer matches the patterns' };
      schema = await this.#describe(t.db, t.table);
      await catalog.capture?.(found);
      plan = await planTable(catalog, found, o);
    }
    const next = (await nextChunk(catalog, plan, o.chunkSize))!;
    const d = this.#dialect;
    // The session's watermark first: a dialect may make what its merges read here (PostgreSQL's backfill slot).
    const now = await this.#session.currentPosition();
    const low = mergeFrom !== undefined && d.comparePositions(mergeFrom, now) < 0 ? mergeFrom : now;
    const result = await readChunk({ session: this.#session, comparePositions: (a: P, b: P) => d.comparePositions(a, b), logName: d.logName, low }, next.split);
    return { kind: 'chunk', plan: next.plan, split: next.split, result, ...(schema ? { schema } : {}) };
  }

  /** The table's columns (typed as the log types them) and primary key, as the catalog has them now. */
  async #describe(db: string, table: string): Promise<CdcTableSchema | undefined> {
    const described = (await this.#session.describeTables?.())?.find((s) => s.db === db && s.table === table);
    if (!described) return undefined;
    return { ...described, primaryKey: [...(await this.#session.rowIdentity(db, table))] };
  }

  #connect(): Promise<CdcCatalog<P>> {
    this.#catalog ??= this.#dialect.connectCatalog(this.#readers);
    return this.#catalog;
  }

  async close(): Promise<void> {
    const c = this.#catalog;
    this.#catalog = undefined;
    await (await c?.catch(() => undefined))?.close();
  }
}
