import { createLogicalSlot, DEFAULT_SLOT_CREATION_TIMEOUT_MS } from './logical-slot-creation.ts';
import type { CdcLogReader, CdcReaderSession } from '../cdc/cdc-dialect.ts';
import type { SnapshotSplit } from '../cdc/cdc-split.ts';
import { formatLsn, parseLsn, watermarkFromInsertLsn, type Lsn } from './lsn.ts';
import type { PgChangeSource, RowImage } from './pg-change-record.ts';
import { PgCdcLogReader } from './pg-cdc-log-reader.ts';
import { PgLogReader } from './pg-log-reader.ts';
import { BackfillStream } from './backfill-stream.ts';
import { quoteIdent, quoteLiteral } from './pg-quote.ts';
import { PgSqlClient } from './pg-sql-client.ts';
import { copyRows, loadTableShape, type TableShape } from './pg-chunk-copy.ts';
import type { CopyRowList } from './copy-row-list.ts';
import { PgTypeCatalog } from './pg-type-catalog.ts';
import { DEFAULT_PUBLICATION, DEFAULT_SLOT, pgTableMatches, type PostgresCdcOptions } from './postgres-cdc-options.ts';
import type { CdcTableSchema } from '../cdc/schema-change.ts';
import { ReplicationStreamError, SlotInUseError } from './postgres-cdc-error.ts';
import { ReplicationConnection } from './replication-connection.ts';
import { explainSlotFailure, SLOT_RELEASE_WAIT_MS, slotReleased } from './replication-setup.ts';
import { slotLagBytes } from './slot-lag.ts';

const DEFAULT_CONFIRM_DELAY = 3;

/**
 * One parallel reader's connections. Chunk backfills read a backfill slot of this reader's own,
 * `<slot>_b<subtask>`, made (fresh: one a killed run left is dropped first) before its first
 * watermark. The initial snapshot's chunks read it on one stream, each from where the one before
 * stopped (backfill-stream.ts), which confirms each LOW when its chunk is done. When the WAL phase
 * opens, this reader's chunks are read: the stream is closed and the slot dropped, since its
 * confirmed LSN would hold the server's WAL back from then on. A table added later gets a slot
 * again, a stream per chunk, and the slot is dropped once no added table is pending (a
 * TEMPORARY slot would vanish by itself after a kill, but a walsender serves only one logical
 * START_REPLICATION per connection: a second one ends at once, so the slot could not outlive
 * its first stream). Flink CDC makes and drops a backfill slot per chunk instead. The WAL phase
 * reads the source's slot on a connection of its own.
 */
export class PostgresReaderSession implements CdcReaderSession<Lsn, PgChangeSource> {
  readonly #o: PostgresCdcOptions;
  readonly #subtask: number;
  readonly #sql: PgSqlClient;
  readonly #types = new PgTypeCatalog();
  #backfillSlotName: string | undefined;
  /** The initial snapshot's backfills share one stream; those of tables added later each have their own. */
  #backfills: BackfillStream | 'per-chunk' | undefined;
  /** Dropping the backfill slot (releaseChunkReads): a new one is made only after it. */
  #releasing: Promise<void> = Promise.resolve();
  #walLayout: { readonly blockSize: number; readonly segmentSize: number } | undefined;
  #lastHigh: { readonly lsn: Lsn; readonly text: string } | undefined;
  /** Per table, its shape as the last chunk's COPY saw it: the next chunk's columns and key without a round trip. */
  readonly #shapes = new Map<string, TableShape>();
  #selectedUntil: Lsn | undefined;

  private constructor(o: PostgresCdcOptions, subtask: number, sql: PgSqlClient) {
    this.#o = o;
    this.#subtask = subtask;
    this.#sql = sql;
  }

  static async connect(o: PostgresCdcOptions, subtask: number): Promise<PostgresReaderSession> {
    return new PostgresReaderSession(o, subtask, await PgSqlClient.connect(o));
  }

  async currentPosition(): Promise<Lsn> {
    await this.#backfillSlot(); // before the watermark: the slot then holds every change after it
    // The insert position, not pg_current_wal_lsn() (written): with synchronous_commit off, a
    // commit the SELECT saw may not be written yet, and would fall after a written-position HIGH.
    const [r] = await this.#sql.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn');
    return this.#watermark(r!.lsn);
  }

  async #watermark(insertLsn: string): Promise<Lsn> {
    const wal = (this.#walLayout ??= await walLayout(this.#sql));
    return watermarkFromInsertLsn(parseLsn(insertLsn), wal.blockSize, wal.segmentSize);
  }

  /** The primary key as the last chunk of the table saw it (a chunk's read checks it again). */
  async rowIdentity(db: string, table: string): Promise<readonly string[]> {
    return (await this.#shape(db, table)).key;
  }

  async #shape(db: string, table: string): Promise<TableShape> {
    const id = `${db}.${table}`;
    let shape = this.#shapes.get(id);
    if (!shape) this.#shapes.set(id, (shape = await loadTableShape(this.#sql, this.#types, db, table)));
    return shape;
  }

  /**
   * One round trip: the COPY of the chunk's rows, the table's shape as the COPY saw it (kept for
   * the next chunk's columns and key) and the WAL insert position after it, the chunk's HIGH.
   */
  async selectChunk(split: SnapshotSplit): Promise<RowImage[]> {
    const rows = await this.selectChunkRows(split);
    return Array.from({ length: rows.length }, (_, i) => rows.at(i)!);
  }

  /** selectChunk's rows, each decoded when asked for (copy-row-list.ts). */
  async selectChunkRows(split: SnapshotSplit): Promise<CopyRowList> {
    this.#selectedUntil = undefined;
    const k = quoteIdent(split.keyColumn);
    // COPY takes no parameters: the bounds are literals the server casts to the key's type.
    const where: string[] = [];
    if (split.start !== null) where.push(`${k} >= ${quoteLiteral(String(split.start))}`);
    if (split.end !== null) where.push(`${k} < ${quoteLiteral(String(split.end))}`);
    const r = await copyRows(this.#sql, this.#types, split.db, split.table, where.join(' AND '), await this.#shape(split.db, split.table));
    this.#shapes.set(`${split.db}.${split.table}`, r.shape);
    this.#selectedUntil = await this.#watermark(r.insertLsn);
    return r.rows;
  }

  selectedUntil(): Lsn | undefined {
    return this.#selectedUntil;
  }

  async openLog(from: Lsn, backfillOf?: { readonly db: string; readonly table: string }): Promise<CdcLogReader<Lsn, PgChangeSource>> {
    // The publication may hold more tables (FOR ALL TABLES): only the source's are followed.
    const captured = (schema: string, table: string) => pgTableMatches(this.#o.tables, schema, table);
    if (backfillOf) {
      // The shared stream serves chunks of every table; a chunk's merge takes its own table's rows.
      this.#backfills ??= new BackfillStream((low) => this.#openBackfill(low, captured));
      if (this.#backfills !== 'per-chunk') return this.#backfills.view(from);
      return this.#openBackfill(from, (schema, table) => schema === backfillOf.db && table === backfillOf.table, from);
    }
    // The WAL phase: this reader's initial chunks are read. A slot that could not be dropped only
    // holds WAL back (the next run's first chunk drops it): no reason to fail the job.
    await this.releaseChunkReads().catch((e: unknown) => warnOf(this.#o)(`could not drop the backfill slot of reader ${this.#subtask} (it holds the server's WAL back until the next run drops it, or: SELECT pg_drop_replication_slot('${slotNameOf(this.#o, this.#subtask)}')): ${(e as Error).message}`));
    this.#backfills = 'per-chunk';
    return this.#openStream(from, captured);
  }

  /**
   * No chunk read follows for now (the WAL phase began, or no added table is pending): the
   * backfill slot is dropped, since its confirmed LSN would hold the server's WAL back. The next
   * chunk's watermark makes it again.
   */
  releaseChunkReads(): Promise<void> {
    const slot = this.#backfillSlotName;
    const stream = this.#backfills instanceof BackfillStream ? this.#backfills : undefined;
    this.#backfillSlotName = undefined;
    if (stream) this.#backfills = undefined;
    if (!slot) return this.#releasing;
    // A drop that failed is reported to its caller once; the next slot's making drops what is left.
    this.#releasing = this.#releasing.catch(() => {}).then(async () => {
      await stream?.close();
      // The server may show the slot active for a moment after its stream closed.
      if (stream) await slotReleased(this.#sql, slot);
      await this.#sql.query('SELECT pg_drop_replication_slot($1)', [slot]);
    });
    return this.#releasing;
  }

  /** A stream of the backfill slot from `from` (confirming `confirmOnClose` when closed). */
  async #openBackfill(from: Lsn, include: (schema: string, table: string) => boolean, confirmOnClose?: Lsn): Promise<PgCdcLogReader> {
    return this.#openStream(from, include, { slot: await this.#backfillSlot(), ...(confirmOnClose !== undefined ? { confirmOnClose } : {}) });
  }

  async #openStream(from: Lsn, include: (schema: string, table: string) => boolean, backfill?: { readonly slot: string; readonly confirmOnClose?: Lsn }): Promise<PgCdcLogReader> {
    const warn = warnOf(this.#o);
    const publication = this.#o.publicationName ?? DEFAULT_PUBLICATION;
    const slot = backfill?.slot ?? this.#o.slotName ?? DEFAULT_SLOT;
    for (let attempt = 1; ; attempt++) {
      const conn = await ReplicationConnection.connect(this.#o);
      try {
        const stream = await conn.stream({ slot, publication, start: from });
        const log = new PgLogReader({ database: this.#o.database, stream, sql: this.#sql, catalog: this.#types, warn, relations: !backfill, onClose: () => conn.close() }, from);
        if (backfill) return new PgCdcLogReader(log, { include, confirmDelay: null, ...(backfill.confirmOnClose !== undefined ? { confirmOnClose: backfill.confirmOnClose } : {}), warn });
        const sql = this.#sql;
        return new PgCdcLogReader(log, { include, confirmDelay: this.#o.lsnCommitCheckpointsDelay ?? DEFAULT_CONFIRM_DELAY, warn, slotLag: () => slotLagBytes(sql, slot) });
      } catch (e) {
        await conn.close();
        if (!(e instanceof ReplicationStreamError)) throw e;
        // "in use" and "invalidated" come back as bare SQLSTATEs: the slot's row names the cause.
        const cause = (await explainSlotFailure(this.#sql, { host: this.#o.host, port: this.#o.port }, slot).catch(() => undefined)) ?? e;
        // In use right after a failover: the run before may still be closing its stream.
        if (cause instanceof SlotInUseError && attempt === 1 && (await slotReleased(this.#sql, slot))?.active_pid === null) continue;
        throw cause;
      }
    }
  }

  /** The captured tables' columns, typed as the stream's RELATION messages are (pg-type-catalog.ts's typeName). */
  async describeTables(): Promise<CdcTableSchema[]> {
    const rows = await this.#sql.query<{ nspname: string; relname: string; attname: string; atttypid: number; atttypmod: number }>(
      `SELECT n.nspname, c.relname, a.attname, a.atttypid::int8 AS atttypid, a.atttypmod
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
         AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%'
       ORDER BY n.nspname, c.relname, a.attnum`,
    );
    const mine = rows.filter((r) => pgTableMatches(this.#o.tables, r.nspname, r.relname));
    await this.#types.load(this.#sql, mine.map((r) => Number(r.atttypid)));
    const tables = new Map<string, CdcTableSchema>();
    for (const r of mine) {
      const k = `${r.nspname}.${r.relname}`;
      const t = tables.get(k) ?? { db: r.nspname, table: r.relname, version: 0, columns: [] };
      tables.set(k, { ...t, columns: [...t.columns, { name: r.attname, type: this.#types.typeName(Number(r.atttypid), Number(r.atttypmod)) }] });
    }
    return [...tables.values()];
  }

  snapshotSource(split: SnapshotSplit, high: Lsn, row: number, readAt: number): PgChangeSource {
    // Called for every row of a chunk with the chunk's HIGH: formatted once per chunk.
    if (this.#lastHigh?.lsn !== high) this.#lastHigh = { lsn: high, text: formatLsn(high) };
    const lsn = this.#lastHigh.text;
    return { db: this.#o.database, schema: split.db, table: split.table, lsn, changeLsn: lsn, index: row, txId: null, ts: readAt, snapshot: true };
  }

  async close(): Promise<void> {
    try {
      // Chunk reads have ended (a shared backfill stream is closed first, so the slot is released).
      await this.releaseChunkReads();
    } finally {
      await this.#sql.close();
    }
  }

  async #backfillSlot(): Promise<string> {
    await this.#releasing.catch(() => {});
    if (!this.#backfillSlotName) {
      const slot = slotNameOf(this.#o, this.#subtask);
      // One left by a killed or stopped run of this subtask: its WAL position is stale, start afresh.
      if (await this.#releasedSlot(slot)) await this.#sql.query('SELECT pg_drop_replication_slot($1)', [slot]);
      await createLogicalSlot(this.#sql, this.#o, slot, this.#o.slotCreationTimeoutMs ?? DEFAULT_SLOT_CREATION_TIMEOUT_MS);
      this.#backfillSlotName = slot;
    }
    return this.#backfillSlotName;
  }

  /**
   * Whether the slot exists, once no process streams it. Right after a stop or a failover the
   * stream of the run before may still be closing (the server shows the slot active for a
   * moment, longer on a busy machine); dropping only inactive slots then left it, and creating it
   * again failed the job.
   */
  async #releasedSlot(slot: string): Promise<boolean> {
    let row = await slotReleased(this.#sql, slot, 0);
    if (row?.active_pid != null) {
      warnOf(this.#o)(`backfill slot '${slot}' is still streamed by server process ${row.active_pid} (a run before this one closing its stream); waiting up to ${SLOT_RELEASE_WAIT_MS / 1000} s for it to end`);
      row = await slotReleased(this.#sql, slot);
      if (row?.active_pid != null) throw new SlotInUseError({ host: this.#o.host, port: this.#o.port }, slot, row.active_pid);
    }
    return row !== undefined;
  }
}

/** The server's WAL page and segment sizes in bytes (fixed when its cluster was made). */
async function walLayout(sql: PgSqlClient): Promise<{ blockSize: number; segmentSize: number }> {
  const rows = await sql.query<{ name: string; setting: string }>(`SELECT name, setting FROM pg_settings WHERE name IN ('wal_block_size', 'wal_segment_size')`);
  const get = (name: string) => Number(rows.find((r) => r.name === name)?.setting);
  return { blockSize: get('wal_block_size'), segmentSize: get('wal_segment_size') };
}

/** A reader's backfill slot: `<slot>_b<subtask>`. */
function slotNameOf(o: PostgresCdcOptions, subtask: number): string {
  return `${o.slotName ?? DEFAULT_SLOT}_b${subtask}`;
}

function warnOf(o: PostgresCdcOptions): (message: string) => void {
  return o.warn ?? ((m: string) => console.warn(m));
}
