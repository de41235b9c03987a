import type { CdcCatalog, CdcStartup, CdcTable } from '../cdc/cdc-dialect.ts';
import type { ChunkBound } from '../cdc/chunk-key.ts';
import { parseLsn, type Lsn } from './lsn.ts';
import { quoteIdent, quoteTable } from './pg-quote.ts';
import { TableNotPublishedError } from './postgres-cdc-error.ts';
import { PgSqlClient } from './pg-sql-client.ts';
import { PgTypeCatalog } from './pg-type-catalog.ts';
import { loadTableTypes } from './pg-table-rows.ts';
import { DEFAULT_PUBLICATION, DEFAULT_SLOT, type PostgresCdcOptions } from './postgres-cdc-options.ts';
import { approxRows, keyExpr, listCapturedTables } from './postgres-table-catalog.ts';
import { dropBackfillSlotsBeyond, prepareReplication } from './replication-setup.ts';

/** The enumerator's view of a PostgreSQL database: checks, tables, key ranges and startup position. */
export class PostgresCatalog implements CdcCatalog<Lsn> {
  readonly #o: PostgresCdcOptions;
  readonly #sql: PgSqlClient;
  readonly #types = new PgTypeCatalog();
  readonly #readers: number | undefined;
  #tables: CdcTable[] | undefined;
  #slotFlush: Lsn | undefined;

  private constructor(o: PostgresCdcOptions, sql: PgSqlClient, readers: number | undefined) {
    this.#o = o;
    this.#sql = sql;
    this.#readers = readers;
  }

  static async connect(o: PostgresCdcOptions, readers?: number): Promise<PostgresCatalog> {
    return new PostgresCatalog(o, await PgSqlClient.connect(o), readers);
  }

  async check(warn: (message: string) => void = () => {}): Promise<void> {
    const tables = await this.listTables();
    const slot = this.#o.slotName ?? DEFAULT_SLOT;
    const snapshotOnly = this.#o.startup?.mode === 'snapshot-only';
    const setup = await prepareReplication(this.#sql, { host: this.#o.host, port: this.#o.port }, {
      publication: this.#o.publicationName ?? DEFAULT_PUBLICATION,
      ...(snapshotOnly ? {} : { slot }),
      tables: tables.map((t) => ({ schema: t.db, table: t.table })),
      createMissing: this.#o.createMissing ?? true,
      publishMissingTables: this.#o.scanNewlyAddedTables ?? false,
      ...(this.#o.slotCreationTimeoutMs !== undefined ? { slotCreationTimeoutMs: this.#o.slotCreationTimeoutMs } : {}),
    });
    this.#slotFlush = setup.confirmedFlush;
    if (this.#readers !== undefined) {
      for (const dropped of await dropBackfillSlotsBeyond(this.#sql, slot, this.#readers)) {
        warn(`dropped replication slot '${dropped}', a backfill slot left by a run of this source with more parallel readers (it held WAL back)`);
      }
    }
  }

  async startup(): Promise<CdcStartup<Lsn>> {
    const mode = this.#o.startup ?? { mode: 'initial' };
    switch (mode.mode) {
      case 'initial':
      case 'snapshot-only':
        return { snapshot: true };
      case 'latest': {
        const [r] = await this.#sql.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
        return { snapshot: false, start: parseLsn(r!.lsn) };
      }
      case 'committed-offset':
        if (this.#slotFlush === undefined) await this.check();
        return { snapshot: false, start: this.#slotFlush! };
      case 'specific':
        return { snapshot: false, start: parseLsn(mode.lsn) };
    }
  }

  async listTables(): Promise<CdcTable[]> {
    this.#tables ??= await listCapturedTables(this.#sql, this.#o.database, this.#o.tables, this.#o.chunkKeyColumn ?? {});
    return this.#tables;
  }

  /** The matching tables now (uncached), none an empty list: for tables added later. */
  discoverTables(): Promise<CdcTable[]> {
    return listCapturedTables(this.#sql, this.#o.database, this.#o.tables, this.#o.chunkKeyColumn ?? {}, false);
  }

  /**
   * An added table joins the publication (unless it publishes all tables) before its first chunk's
   * LOW: pgoutput sends only published tables' changes, and a table outside the publication would
   * be snapshotted and then never updated.
   */
  async capture(t: CdcTable): Promise<void> {
    const publication = this.#o.publicationName ?? DEFAULT_PUBLICATION;
    const [p] = await this.#sql.query<{ all: boolean }>('SELECT puballtables AS all FROM pg_publication WHERE pubname = $1', [publication]);
    if (p?.all) return;
    const [listed] = await this.#sql.query<{ n: number }>('SELECT 1 AS n FROM pg_publication_tables WHERE pubname = $1 AND schemaname = $2 AND tablename = $3', [publication, t.db, t.table]);
    if (listed) return;
    const site = { host: this.#o.host, port: this.#o.port };
    if (!(this.#o.createMissing ?? true)) throw new TableNotPublishedError(site, `${t.db}.${t.table}`, publication);
    await this.#sql.query(`ALTER PUBLICATION ${quoteIdent(publication)} ADD TABLE ${quoteTable(t.db, t.table)}`);
  }

  async keyRange(t: CdcTable): Promise<{ min: ChunkBound; max: ChunkBound; approxRows: number }> {
    const [r] = await this.#keyQuery<{ lo: ChunkBound; hi: ChunkBound }>(t, `SELECT MIN(${keyExpr(t)}) AS lo, MAX(${keyExpr(t)}) AS hi FROM ${quoteTable(t.db, t.table)}`);
    return { min: r?.lo ?? null, max: r?.hi ?? null, approxRows: await approxRows(this.#sql, t.db, t.table) };
  }

  async keyAtOffset(t: CdcTable, from: ChunkBound, offset: number): Promise<ChunkBound> {
    const k = keyExpr(t);
    const where = from === null ? '' : `WHERE ${k} >= $1`;
    const [r] = await this.#keyQuery<{ k: ChunkBound }>(t, `SELECT ${k} AS k FROM ${quoteTable(t.db, t.table)} ${where} ORDER BY ${k} LIMIT 1 OFFSET ${Math.trunc(offset)}`, from === null ? [] : [from]);
    return r?.k ?? null;
  }

  async keyAfter(t: CdcTable, from: ChunkBound): Promise<ChunkBound> {
    const k = keyExpr(t);
    const [r] = await this.#keyQuery<{ k: ChunkBound }>(t, `SELECT MIN(${k}) AS k FROM ${quoteTable(t.db, t.table)} WHERE ${k} > $1`, [from]);
    return r?.k ?? null;
  }

  async close(): Promise<void> {
    await this.#sql.close();
  }

  /** Key values come back as the codec reads them, so they compare with the rows' keys. */
  async #keyQuery<R>(t: CdcTable, text: string, params: readonly unknown[] = []): Promise<R[]> {
    await loadTableTypes(this.#sql, this.#types, t.db, t.table);
    return this.#sql.query<R>(text, params, (oid) => this.#types.parser(oid));
  }
}
