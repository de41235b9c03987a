import type { CheckpointCompletion, EnumeratorContext, SplitEnumerator } from '../../api/source.ts';
import type { CdcCatalog, CdcDialect } from './cdc-dialect.ts';
import type { CdcSourceEvent, CdcSplit, FinishedChunk, FinishedTable, LogSplit, SnapshotSplit } from './cdc-split.ts';
import type { CdcRecordSource } from './change-record.ts';
import { estimatedChunks, nextChunk, planTable, type ChunkingOptions, type TablePlan } from './chunk-splitter.ts';
import { reconcileSnapshot } from './snapshot-reconcile.ts';

/**
 * The enumerator's checkpointed state. Snapshot phase: each table's cutting progress, the chunks
 * handed out and not yet reported finished, and the finished ones with their HIGH watermarks.
 * Then the log split is made from the finished chunks and handed to one reader, whose state
 * carries it from there on. The names with 'binlog' in them are the log's, for every dialect: the
 * state's format since MySQL was the only one (version 1), kept so that its checkpoints restore.
 */
export interface CdcEnumeratorState<P> {
  readonly version: 1;
  /**
   * 'snapshot-finished': every chunk is read, the log split waits for a checkpoint triggered
   * after that to complete. Until then the snapshot rows may still be in flight on other readers'
   * channels, and a log change of the same key must not overtake them downstream.
   * 'binlog': the log phase.
   */
  readonly phase: 'snapshot' | 'snapshot-finished' | 'binlog';
  /** The checkpoint whose completion releases the log split (phase snapshot-finished). */
  readonly gateCheckpoint: number | null;
  readonly tables: readonly TablePlan[];
  readonly assigned: Readonly<Record<string, SnapshotSplit>>;
  readonly finished: readonly FinishedChunk<P>[];
  /** Startup without a snapshot: where the log split starts (fixed at the first start). */
  readonly binlogStart: P | null;
  readonly fromTimestamp: number | null;
  /** The log split is out. */
  readonly binlogAssigned: boolean;
  readonly snapshotStartedAt: number;
  readonly snapshotFinishedAt: number | null;
  readonly rowsRead: number;
  readonly chunksFinished: number;
}

export class CdcSplitEnumerator<P, S extends CdcRecordSource> implements SplitEnumerator<CdcSplit<P>, CdcEnumeratorState<P> | undefined> {
  readonly #ctx: EnumeratorContext<CdcSplit<P>>;
  readonly #dialect: CdcDialect<P, S>;
  readonly #o: ChunkingOptions;
  #state: CdcEnumeratorState<P> | undefined;
  #catalog: CdcCatalog<P> | undefined;
  /** Readers that asked while every chunk was out: one of them gets the log split. */
  readonly #waiting = new Set<number>();

  /** 'end': a snapshot-only source; its readers are told there are no more splits once the snapshot is read. */
  readonly #afterSnapshot: 'log' | 'end';

  /** `snapshotsAtStart`: whether a fresh start snapshots the tables (the startup mode), known before start(). */
  constructor(ctx: EnumeratorContext<CdcSplit<P>>, dialect: CdcDialect<P, S>, options: ChunkingOptions, restored: CdcEnumeratorState<P> | undefined, snapshotsAtStart: boolean, afterSnapshot: 'log' | 'end' = 'log') {
    this.#ctx = ctx;
    this.#dialect = dialect;
    this.#o = options;
    this.#state = restored;
    this.#afterSnapshot = afterSnapshot;
    // The snapshot is a backlog from the first checkpoint on, before start() has looked at anything.
    if (restored ? restored.phase === 'snapshot' : snapshotsAtStart) ctx.setProcessingBacklog(true);
  }

  async start(): Promise<void> {
    const catalog = await this.#dialect.connectCatalog(this.#ctx.parallelism);
    this.#catalog = catalog;
    await catalog.check((message) => this.#ctx.log.warn(message));
    // Restored after the snapshot finished, before the gate opened: the checkpoint may have been
    // unaligned, its in-flight snapshot rows to be processed again, so a new gate is waited for.
    if (this.#state?.phase === 'snapshot-finished') this.#state = this.#ctx.checkpointing ? { ...this.#state, gateCheckpoint: null } : { ...this.#state, phase: 'binlog' };
    if (this.#state?.binlogAssigned) this.#releaseCatalog();
    if (this.#state?.phase === 'snapshot' && this.#dialect.scanNewlyAddedTables === true) {
      const reconcile = await reconcileSnapshot(this.#state, catalog, this.#dialect, this.#o, this.#ctx.log);
      // Applied to the state as it is now: restored readers' reports may have come meanwhile.
      this.#state = reconcile(this.#state);
    }
    if (this.#state) return;
    const startup = await catalog.startup();
    const base = { version: 1 as const, gateCheckpoint: null, assigned: {}, finished: [], binlogAssigned: false, snapshotStartedAt: Date.now(), rowsRead: 0, chunksFinished: 0 };
    if (startup.snapshot) {
      const plans: TablePlan[] = [];
      for (const t of await catalog.listTables()) {
        // With tables added later, a table the publication lacks is published before its snapshot.
        if (this.#dialect.scanNewlyAddedTables === true) await catalog.capture?.(t);
        plans.push(await planTable(catalog, t, this.#o));
      }
      this.#state = { ...base, phase: 'snapshot', tables: plans, binlogStart: null, fromTimestamp: null, snapshotFinishedAt: null };
      return;
    }
    this.#state = { ...base, phase: 'binlog', tables: [], binlogStart: startup.start, fromTimestamp: startup.fromTimestamp ?? null, snapshotFinishedAt: Date.now() };
  }

  async handleSplitRequest(subtask: number): Promise<void> {
    const state = this.#state!;
    if (state.phase === 'binlog') {
      if (this.#afterSnapshot === 'end') this.#ctx.signalNoMoreSplits(subtask);
      else this.#assignLog(subtask);
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
      const next = await nextChunk(this.#catalog!, plan, this.#o.chunkSize);
      if (next) return next;
    }
    return null;
  }

  handleSourceEvent(subtask: number, event: unknown): void {
    const e = event as CdcSourceEvent<P>;
    if (e.kind !== 'chunks-finished') return;
    const s = this.#state!;
    const known = new Set(s.finished.map((c) => c.id));
    const planned = new Set(s.tables.map((t) => `${t.db}.${t.table}`));
    // Reports repeated by a restored reader, arriving after the snapshot phase, or of a table dropped from the state, change nothing.
    const fresh = s.phase === 'snapshot' ? e.chunks.filter((c) => !known.has(c.id) && planned.has(`${c.db}.${c.table}`)) : [];
    const assigned = { ...s.assigned };
    for (const c of e.chunks) delete assigned[c.id];
    this.#state = {
      ...s,
      assigned,
      finished: [...s.finished, ...fresh],
      rowsRead: s.rowsRead + fresh.reduce((n, c) => n + c.rows, 0),
      chunksFinished: s.chunksFinished + fresh.length,
    };
    this.#ctx.sendEventToReader(subtask, { kind: 'chunks-acknowledged', ids: e.chunks.map((c) => c.id) } satisfies CdcSourceEvent<P>);
    this.#maybeFinishSnapshot();
  }

  /** Every table cut and every chunk finished: the snapshot is done; the log split goes out after the next checkpoint. */
  #maybeFinishSnapshot(): void {
    const s = this.#state!;
    if (s.phase !== 'snapshot' || s.tables.some((t) => !t.done) || Object.keys(s.assigned).length > 0) return;
    if (this.#afterSnapshot === 'end') {
      // No log follows, so no snapshot row can be overtaken: the readers end once they are done.
      this.#state = { ...s, phase: 'binlog', binlogAssigned: true, snapshotFinishedAt: Date.now() };
      this.#ctx.setProcessingBacklog(false);
      for (let subtask = 0; subtask < this.#ctx.parallelism; subtask++) this.#ctx.signalNoMoreSplits(subtask);
      this.#waiting.clear();
      this.#releaseCatalog();
      return;
    }
    this.#state = { ...s, phase: this.#ctx.checkpointing ? 'snapshot-finished' : 'binlog', snapshotFinishedAt: Date.now() };
    this.#ctx.setProcessingBacklog(false);
    // Readers let go of what their chunk reads held (PostgreSQL: a backfill slot holding WAL back),
    // the ones that will not follow the log as well.
    for (let subtask = 0; subtask < this.#ctx.parallelism; subtask++) this.#ctx.sendEventToReader(subtask, { kind: 'snapshot-finished' } satisfies CdcSourceEvent<P>);
    if (!this.#ctx.checkpointing) this.#assignLog(this.#readerForLog());
  }

  #readerForLog(): number {
    return this.#waiting.size > 0 ? Math.min(...this.#waiting) : 0;
  }

  notifyCheckpointComplete(checkpointId: number, completion?: CheckpointCompletion): void {
    const s = this.#state;
    if (s?.phase !== 'snapshot-finished' || s.gateCheckpoint === null || checkpointId < s.gateCheckpoint) return;
    if (completion?.unaligned) {
      // Its barriers overtook records: snapshot rows may still be in flight. The next one decides.
      this.#state = { ...s, gateCheckpoint: null };
      this.#ctx.log.info(`checkpoint ${checkpointId} was unaligned: the snapshot's last rows may still be in flight, so ${this.#dialect.logName} is followed after the next aligned one`);
      return;
    }
    // Every reader's snapshot rows were before that checkpoint's aligned barriers: all processed downstream.
    this.#state = { ...s, phase: 'binlog' };
    this.#assignLog(this.#readerForLog());
  }

  #assignLog(subtask: number): void {
    const s = this.#state!;
    if (s.binlogAssigned) return;
    const split = s.binlogStart !== null ? this.#startupLogSplit(s, s.binlogStart) : this.#snapshotLogSplit(s);
    // The log split carries the finished chunks from here on; the enumerator keeps only counts.
    this.#state = { ...s, binlogAssigned: true, finished: [], assigned: {} };
    this.#waiting.clear();
    this.#ctx.assignSplits(subtask, [split]);
    this.#releaseCatalog();
  }

  /** Nothing more to query once the log split is out (an idle connection would only time out). */
  #releaseCatalog(): void {
    const catalog = this.#catalog;
    this.#catalog = undefined;
    void catalog?.close();
  }

  #startupLogSplit(s: CdcEnumeratorState<P>, start: P): LogSplit<P> {
    return { kind: 'binlog', id: 'binlog', start, skipEvents: 0, tables: [], maxHigh: null, ...(s.fromTimestamp !== null ? { fromTimestamp: s.fromTimestamp } : {}) };
  }

  /** Start at the lowest HIGH watermark; events a chunk already holds are dropped by position. */
  #snapshotLogSplit(s: CdcEnumeratorState<P>): LogSplit<P> {
    const highs = s.finished.map((c) => c.high).sort((a, b) => this.#dialect.comparePositions(a, b));
    const tables: FinishedTable<P>[] = s.tables.map((t) => ({
      db: t.db,
      table: t.table,
      keyColumn: t.keyColumn,
      keyKind: t.keyKind,
      chunks: s.finished
        .filter((c) => c.db === t.db && c.table === t.table)
        .sort((a, b) => a.index - b.index)
        .map((c) => ({ start: c.start, end: c.end, high: c.high })),
    }));
    // With tables added later, the log's reader compares what matches with what was snapshotted.
    const captured = this.#dialect.scanNewlyAddedTables === true ? { captured: s.tables.map((t) => `${t.db}.${t.table}`) } : {};
    return { kind: 'binlog', id: 'binlog', start: highs[0]!, skipEvents: 0, tables, maxHigh: highs[highs.length - 1]!, ...captured };
  }

  /** Undefined before start() has looked at the tables: a restore from it starts over. */
  snapshotState(checkpointId: number): CdcEnumeratorState<P> | undefined {
    const s = this.#state;
    if (s?.phase === 'snapshot-finished' && s.gateCheckpoint === null) this.#state = { ...s, gateCheckpoint: checkpointId };
    return this.#state;
  }

  /** The snapshot-progress view (the dashboard's CDC card reads these). */
  metrics(): Record<string, number> {
    const s = this.#state;
    if (!s) return {};
    const total = s.phase !== 'snapshot' ? s.chunksFinished : s.tables.reduce((n, t) => n + estimatedChunks(t, this.#o.chunkSize), 0);
    const end = s.snapshotFinishedAt ?? Date.now();
    const seconds = Math.max(0.001, (end - s.snapshotStartedAt) / 1000);
    const left = Math.max(0, total - s.chunksFinished);
    // A table is snapshotted once its last chunk is cut and none of its chunks is still being read.
    const reading = new Set(Object.values(s.assigned).map((a) => `${a.db}.${a.table}`));
    const tablesDone = s.phase !== 'snapshot' ? s.tables.length : s.tables.filter((t) => t.done && !reading.has(`${t.db}.${t.table}`)).length;
    return {
      snapshot_tables: s.tables.length,
      snapshot_tables_done: tablesDone,
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
    await this.#catalog?.close();
  }
}
