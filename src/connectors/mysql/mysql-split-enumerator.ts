import type { EnumeratorContext, SplitEnumerator } from '../../api/source.ts';
import type { BinlogSplit, CdcSourceEvent, CdcSplit, FinishedChunk, FinishedTable, LogPosition, SnapshotSplit } from './cdc-split.ts';
import { estimatedChunks, nextChunk, planTable, type TablePlan } from './chunk-splitter.ts';
import { compareBinlogPositions } from './binlog-position.ts';
import { tableMatches, type ResolvedCdcOptions } from './mysql-cdc-options.ts';
import type { SqlClient } from './sql-client.ts';
import { TableSchemaCache } from './table-schema.ts';

/**
 * The enumerator's checkpointed state. Snapshot phase: each table's cutting progress, the chunks
 * handed out and not yet reported finished, and the finished ones with their HIGH watermarks.
 * Then the binlog split is made from the finished chunks and handed to one reader, whose state
 * carries it from there on.
 */
export interface MySqlEnumeratorState {
  readonly version: 1;
  /**
   * 'snapshot-finished': every chunk is read, the binlog split waits for a checkpoint triggered
   * after that to complete. Until then the snapshot rows may still be in flight on other readers'
   * channels, and a binlog change of the same key must not overtake them downstream.
   */
  readonly phase: 'snapshot' | 'snapshot-finished' | 'binlog';
  /** The checkpoint whose completion releases the binlog split (phase snapshot-finished). */
  readonly gateCheckpoint: number | null;
  readonly tables: readonly TablePlan[];
  readonly assigned: Readonly<Record<string, SnapshotSplit>>;
  readonly finished: readonly FinishedChunk[];
  /** Startup modes other than initial: where the binlog split starts (fixed at the first start). */
  readonly binlogStart: BinlogSplit['start'] | null;
  readonly fromTimestamp: number | null;
  readonly binlogAssigned: boolean;
  readonly snapshotStartedAt: number;
  readonly snapshotFinishedAt: number | null;
  readonly rowsRead: number;
  readonly chunksFinished: number;
}

export interface EnumeratorDeps {
  readonly connect: () => Promise<SqlClient>;
  readonly currentPosition: (sql: SqlClient) => Promise<LogPosition>;
  readonly earliestPosition: (sql: SqlClient) => Promise<LogPosition>;
  /** Refuses servers without a row-based binlog, with the setting named. */
  readonly checkServer: (sql: SqlClient) => Promise<void>;
}

/** No table in the database matched the source's table names or patterns. */
export class NoTablesMatchedError extends Error {
  readonly database: string;
  constructor(database: string, patterns: ReadonlyArray<string | RegExp>, present: string[]) {
    super(
      `no table in database '${database}' matches ${patterns.map(String).join(', ')} (tables there: ${present.length > 0 ? present.join(', ') : 'none'})`,
    );
    this.name = 'NoTablesMatchedError';
    this.database = database;
  }
}

export class MySqlSplitEnumerator implements SplitEnumerator<CdcSplit, MySqlEnumeratorState | undefined> {
  readonly #ctx: EnumeratorContext<CdcSplit>;
  readonly #o: ResolvedCdcOptions;
  readonly #deps: EnumeratorDeps;
  #state: MySqlEnumeratorState | undefined;
  #sql: SqlClient | undefined;
  /** Readers that asked while every chunk was out: one of them gets the binlog split. */
  readonly #waiting = new Set<number>();

  constructor(ctx: EnumeratorContext<CdcSplit>, options: ResolvedCdcOptions, deps: EnumeratorDeps, restored: MySqlEnumeratorState | undefined) {
    this.#ctx = ctx;
    this.#o = options;
    this.#deps = deps;
    this.#state = restored;
    // The snapshot is a backlog from the first checkpoint on, before start() has looked at anything.
    if (restored ? restored.phase === 'snapshot' : options.startup.mode === 'initial') ctx.setProcessingBacklog(true);
  }

  async start(): Promise<void> {
    const sql = await this.#deps.connect();
    this.#sql = sql;
    await this.#deps.checkServer(sql);
    await this.#warnWithoutRowMetadata(sql);
    // Restored after the snapshot finished: the checkpoint holds every snapshot row, nothing is in flight.
    if (this.#state?.phase === 'snapshot-finished') this.#state = { ...this.#state, phase: 'binlog' };
    if (this.#state?.binlogAssigned) this.#releaseConnection();
    if (this.#state) return;
    const startup = this.#o.startup;
    const base = { version: 1 as const, gateCheckpoint: null, assigned: {}, finished: [], binlogAssigned: false, snapshotStartedAt: Date.now(), rowsRead: 0, chunksFinished: 0 };
    if (startup.mode === 'initial') {
      const tables = await this.#discoverTables(sql);
      const plans: TablePlan[] = [];
      const schemas = new TableSchemaCache(sql);
      for (const t of tables) plans.push(await planTable(sql, await schemas.get(this.#o.database, t), this.#o));
      this.#state = { ...base, phase: 'snapshot', tables: plans, binlogStart: null, fromTimestamp: null, snapshotFinishedAt: null };
      return;
    }
    const binlogStart: BinlogSplit['start'] =
      startup.mode === 'latest'
        ? await this.#deps.currentPosition(sql)
        : startup.mode === 'earliest' || startup.mode === 'timestamp'
          ? await this.#deps.earliestPosition(sql)
          : 'gtid' in startup
            ? { gtid: startup.gtid }
            : { file: startup.file, pos: startup.pos };
    this.#state = {
      ...base,
      phase: 'binlog',
      tables: [],
      binlogStart,
      fromTimestamp: startup.mode === 'timestamp' ? startup.timestampMs : null,
      snapshotFinishedAt: Date.now(),
    };
  }

  /** Without it, binlog events are decoded with the tables' schemas as they are now. */
  async #warnWithoutRowMetadata(sql: SqlClient): Promise<void> {
    const value = await sql
      .query<{ v: string }>('SELECT @@global.binlog_row_metadata AS v')
      .then((rows) => String(rows[0]?.v ?? ''))
      .catch(() => 'unavailable (the server is older than MariaDB 10.5 / MySQL 8.0.1)');
    if (value.toUpperCase() === 'FULL') return;
    this.#ctx.log.warn(
      `the server's binlog_row_metadata is ${value || 'unknown'}: binlog events are decoded with each table's schema as it is now, so a reader behind an ALTER TABLE (catching up, or restored from a checkpoint taken before it) fails; SET GLOBAL binlog_row_metadata = FULL (and in the server's configuration) makes the binlog describe its own columns`,
    );
  }

  async #discoverTables(sql: SqlClient): Promise<string[]> {
    const rows = await sql.query<{ TABLE_NAME: string }>(
      "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
      [this.#o.database],
    );
    const all = rows.map((r) => r.TABLE_NAME);
    const matched = all.filter((t) => tableMatches(this.#o, t));
    if (matched.length === 0) throw new NoTablesMatchedError(this.#o.database, this.#o.tables, all);
    return matched;
  }

  async handleSplitRequest(subtask: number): Promise<void> {
    const state = this.#state!;
    if (state.phase === 'binlog') {
      this.#assignBinlog(subtask);
      return;
    }
    if (state.phase === 'snapshot-finished') {
      this.#waiting.add(subtask);
      return;
    }
    const made = await this.#nextSplit();
    if (!made) {
      this.#waiting.add(subtask);
      this.#maybeFinishSnapshot();
      return;
    }
    // One synchronous update after the await: a snapshot never sees half of it.
    const s = this.#state!;
    this.#state = {
      ...s,
      tables: s.tables.map((t) => (t.db === made.plan.db && t.table === made.plan.table ? made.plan : t)),
      assigned: { ...s.assigned, [made.split.id]: made.split },
    };
    this.#ctx.assignSplits(subtask, [made.split]);
  }

  async #nextSplit(): Promise<{ split: SnapshotSplit; plan: TablePlan } | null> {
    for (const plan of this.#state!.tables) {
      if (plan.done) continue;
      const next = await nextChunk(this.#sql!, plan, this.#o.chunkSize);
      if (next) return next;
    }
    return null;
  }

  handleSourceEvent(subtask: number, event: unknown): void {
    const e = event as CdcSourceEvent;
    if (e.kind !== 'chunks-finished') return;
    const s = this.#state!;
    const known = new Set(s.finished.map((c) => c.id));
    // Reports repeated by a restored reader, or arriving after the snapshot phase, change nothing.
    const fresh = s.phase === 'snapshot' ? e.chunks.filter((c) => !known.has(c.id)) : [];
    const assigned = { ...s.assigned };
    for (const c of e.chunks) delete assigned[c.id];
    this.#state = {
      ...s,
      assigned,
      finished: [...s.finished, ...fresh],
      rowsRead: s.rowsRead + fresh.reduce((n, c) => n + c.rows, 0),
      chunksFinished: s.chunksFinished + fresh.length,
    };
    this.#ctx.sendEventToReader(subtask, { kind: 'chunks-acknowledged', ids: e.chunks.map((c) => c.id) } satisfies CdcSourceEvent);
    this.#maybeFinishSnapshot();
  }

  /** Every table cut and every chunk finished: the snapshot is done; the binlog split goes out after the next checkpoint. */
  #maybeFinishSnapshot(): void {
    const s = this.#state!;
    if (s.phase !== 'snapshot' || s.tables.some((t) => !t.done) || Object.keys(s.assigned).length > 0) return;
    this.#state = { ...s, phase: this.#ctx.checkpointing ? 'snapshot-finished' : 'binlog', snapshotFinishedAt: Date.now() };
    this.#ctx.setProcessingBacklog(false);
    if (!this.#ctx.checkpointing) this.#assignBinlog(this.#readerForBinlog());
  }

  #readerForBinlog(): number {
    return this.#waiting.size > 0 ? Math.min(...this.#waiting) : 0;
  }

  notifyCheckpointComplete(checkpointId: number): void {
    const s = this.#state;
    if (s?.phase !== 'snapshot-finished' || s.gateCheckpoint === null || checkpointId < s.gateCheckpoint) return;
    // Every reader's snapshot rows were before that checkpoint's barriers: all processed downstream.
    this.#state = { ...s, phase: 'binlog' };
    this.#assignBinlog(this.#readerForBinlog());
  }

  #assignBinlog(subtask: number): void {
    const s = this.#state!;
    if (s.binlogAssigned) return;
    const split = s.binlogStart ? this.#startupBinlogSplit(s) : this.#snapshotBinlogSplit(s);
    // The binlog split carries the finished chunks from here on; the enumerator keeps only counts.
    this.#state = { ...s, binlogAssigned: true, finished: [], assigned: {} };
    this.#waiting.clear();
    this.#ctx.assignSplits(subtask, [split]);
    this.#releaseConnection();
  }

  /** Nothing more to query once the binlog split is out (an idle connection would only time out). */
  #releaseConnection(): void {
    const sql = this.#sql;
    this.#sql = undefined;
    void sql?.close();
  }

  #startupBinlogSplit(s: MySqlEnumeratorState): BinlogSplit {
    return { kind: 'binlog', id: 'binlog', start: s.binlogStart!, skipEvents: 0, tables: [], maxHigh: null, ...(s.fromTimestamp !== null ? { fromTimestamp: s.fromTimestamp } : {}) };
  }

  /** Start at the lowest HIGH watermark; events a chunk already holds are dropped by position. */
  #snapshotBinlogSplit(s: MySqlEnumeratorState): BinlogSplit {
    const highs = s.finished.map((c) => c.high).sort(compareBinlogPositions);
    const tables: FinishedTable[] = s.tables.map((t) => ({
      db: t.db,
      table: t.table,
      keyColumn: t.keyColumn,
      keyKind: t.keyKind,
      chunks: s.finished
        .filter((c) => c.db === t.db && c.table === t.table)
        .sort((a, b) => a.index - b.index)
        .map((c) => ({ start: c.start, end: c.end, high: c.high })),
    }));
    return { kind: 'binlog', id: 'binlog', start: highs[0]!, skipEvents: 0, tables, maxHigh: highs[highs.length - 1]! };
  }

  /** Undefined before start() has looked at the tables: a restore from it starts over. */
  snapshotState(checkpointId: number): MySqlEnumeratorState | undefined {
    const s = this.#state;
    if (s?.phase === 'snapshot-finished' && s.gateCheckpoint === null) this.#state = { ...s, gateCheckpoint: checkpointId };
    return this.#state;
  }

  metrics(): Record<string, number> {
    const s = this.#state;
    if (!s) return {};
    const total = s.phase !== 'snapshot' ? s.chunksFinished : s.tables.reduce((n, t) => n + estimatedChunks(t, this.#o.chunkSize), 0);
    const end = s.snapshotFinishedAt ?? Date.now();
    const seconds = Math.max(0.001, (end - s.snapshotStartedAt) / 1000);
    const left = Math.max(0, total - s.chunksFinished);
    return {
      snapshot_tables: s.tables.length,
      snapshot_chunks_total: total,
      snapshot_chunks_finished: s.chunksFinished,
      snapshot_chunks_in_flight: Object.keys(s.assigned).length,
      snapshot_rows_read: s.rowsRead,
      snapshot_rows_per_second: s.rowsRead / seconds,
      snapshot_seconds_left: s.chunksFinished > 0 && s.phase === 'snapshot' ? (left * seconds) / s.chunksFinished : s.phase === 'snapshot' ? -1 : 0,
      snapshot_done: s.phase === 'snapshot' ? 0 : 1,
    };
  }

  async close(): Promise<void> {
    await this.#sql?.close();
  }
}
