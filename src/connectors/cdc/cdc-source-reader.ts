import type { InputStatus, ReaderActivity, SourceOutput, SourceReader, SourceReaderContext } from '../../api/source.ts';
import type { CdcDialect, CdcReaderSession } from './cdc-dialect.ts';
import type { CdcSourceEvent, CdcSplit, FinishedReport, LogSplit, SnapshotSplit } from './cdc-split.ts';
import type { CdcChangeRecord, CdcRecordSource } from './change-record.ts';
import { AddedTableSnapshot, type AddedTableStep } from './added-table-snapshot.ts';
import type { CdcTable } from './cdc-dialect.ts';
import { LogFollower } from './log-follower.ts';
import { readChunk, type ChunkResult } from './snapshot-chunk-reader.ts';
import { TableFigures } from './table-figures.ts';

/** How often the log's reader looks for added tables the log has not shown (scanNewlyAddedTables). */
const DISCOVERY_INTERVAL_MS = 5_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

interface ChunkRead<P> {
  readonly split: SnapshotSplit;
  readonly startedAt: number;
  result?: ChunkResult<P>;
  error?: unknown;
}

/**
 * One parallel reader of a CDC source. Snapshot chunks are read asynchronously, so barriers pass
 * while a chunk is being fetched; a fetched chunk is emitted whole in one poll, so a checkpoint
 * holds a chunk either not at all (re-read after a restore) or completely (reported finished).
 */
export class CdcSourceReader<P, S extends CdcRecordSource> implements SourceReader<CdcChangeRecord<S>, CdcSplit<P>> {
  readonly #ctx: SourceReaderContext;
  readonly #dialect: CdcDialect<P, S>;
  #session: CdcReaderSession<P, S> | undefined;
  readonly #queue: SnapshotSplit[] = [];
  /** Chunk reads in order: read one at a time, the next while the one before is emitted. */
  readonly #reads: ChunkRead<P>[] = [];
  /** The last chunk's HIGH: the next chunk's LOW (any position before its SELECT will do). */
  #lastHigh: P | undefined;
  readonly #unacked = new Map<string, FinishedReport<P>>();
  #logSplit: LogSplit<P> | undefined;
  #log: LogFollower<P, S> | undefined;
  /** The dialect's reader under #log: told when checkpoints complete. */
  #logReader: { checkpointComplete?(position: P): void; metrics?(): Record<string, number> } | undefined;
  #logOpening: Promise<void> | undefined;
  #logError: unknown;
  /** The log position each checkpoint resumes from, until the checkpoint completes. */
  readonly #checkpointPositions = new Map<number, P>();
  /** Tables added later: their snapshots, the chunk read in flight (the log waits meanwhile), the last chunk's HIGH. */
  #added: AddedTableSnapshot<P, S> | undefined;
  #addedRead: { done?: AddedTableStep<P>; error?: unknown; readonly settled: Promise<void> } | undefined;
  #addedHigh: P | undefined;
  /** When the log's reader next looks for added tables (a table PostgreSQL's WAL has no word of until it is published). */
  #discoverAt = 0;
  #discovering = false;
  #requested = false;
  #wake: (() => void) | undefined;
  readonly #figures = new TableFigures();
  #rows = 0;
  #chunks = 0;
  #merged = 0;
  #closed = false;
  #noMoreSplits = false;

  constructor(ctx: SourceReaderContext, dialect: CdcDialect<P, S>) {
    this.#ctx = ctx;
    this.#dialect = dialect;
  }

  async start(): Promise<void> {
    this.#session = await this.#dialect.connectReader(this.#ctx.subtaskIndex, this.#ctx.parallelism);
  }

  addSplits(splits: CdcSplit<P>[]): void {
    this.#requested = false;
    for (const s of splits) {
      const chunk = s.kind === 'snapshot' ? s : s.kind === 'finished' ? s.chunk : undefined;
      if (chunk && this.#noLongerCaptured(chunk)) {
        // Restored from a run whose patterns matched it; the enumerator drops it from its state too.
        this.#ctx.log.info(`chunk ${s.id} of table ${chunk.db}.${chunk.table} is left out: the table no longer matches the source's patterns`);
      } else if (s.kind === 'snapshot') {
        this.#queue.push(s);
      } else if (s.kind === 'finished') {
        // Restored: the enumerator may not have had this report in its own snapshot.
        this.#unacked.set(s.id, s);
        this.#ctx.sendSourceEvent({ kind: 'chunks-finished', chunks: [s.chunk] } satisfies CdcSourceEvent<P>);
      } else {
        this.#logSplit = s;
      }
    }
    this.#signal();
  }

  /** With tables added later, a table of a restored chunk that the patterns no longer match. */
  #noLongerCaptured(t: { readonly db: string; readonly table: string }): boolean {
    const d = this.#dialect;
    return d.scanNewlyAddedTables === true && d.captures !== undefined && !d.captures(t.db, t.table);
  }

  /** A snapshot-only source: the reader ends once its chunks are emitted. */
  notifyNoMoreSplits(): void {
    this.#noMoreSplits = true;
    this.#signal();
  }

  handleSourceEvent(event: unknown): void {
    const e = event as CdcSourceEvent<P>;
    if (e.kind === 'chunks-acknowledged') for (const id of e.ids) this.#unacked.delete(id);
    if (e.kind === 'snapshot-finished') this.#releaseChunkReads();
  }

  /** No chunk read follows for now: the dialect may let go of what they held (a failure only holds it longer). */
  #releaseChunkReads(): void {
    this.#session?.releaseChunkReads?.().catch((e: unknown) => this.#ctx.log.warn(`releasing what the snapshot's chunk reads held failed: ${(e as Error).message}`));
  }

  pollNext(output: SourceOutput<CdcChangeRecord<S>>): InputStatus {
    const head = this.#reads[0];
    if (head?.error !== undefined) throw head.error;
    if (this.#logError !== undefined) throw this.#logError;
    if (head?.result) {
      this.#reads.shift();
      this.#emitChunk(head.split, head.result, output);
      this.#startNextRead();
      return 'more';
    }
    this.#startNextRead();
    if (this.#log) return this.#pollLog(this.#log, output);
    if (this.#logSplit && !this.#logOpening && this.#reads.length === 0) this.#openLog();
    if (this.#reads.length === 0 && this.#queue.length === 0 && !this.#logSplit) {
      if (this.#noMoreSplits) return 'end';
      this.#request();
    }
    return 'nothing';
  }

  #emitChunk(split: SnapshotSplit, r: ChunkResult<P>, output: SourceOutput<CdcChangeRecord<S>>): void {
    const { db, table } = split;
    const ts = r.readAt;
    const rows = r.rows;
    const session = this.#session!;
    for (let row = 0; row < rows.length; row++) {
      output.collect({ op: 'r', before: null, after: rows.at(row)!, source: session.snapshotSource(split, r.high, row, ts) }, ts);
    }
    const report: FinishedReport<P> = {
      kind: 'finished',
      id: split.id,
      chunk: { id: split.id, db, table, index: split.index, start: split.start, end: split.end, high: r.high, rows: rows.length },
    };
    this.#unacked.set(split.id, report);
    this.#rows += rows.length;
    this.#figures.count(db, table, 'r', rows.length);
    this.#chunks++;
    this.#merged += r.merged;
    this.#ctx.sendSourceEvent({ kind: 'chunks-finished', chunks: [report.chunk] } satisfies CdcSourceEvent<P>);
    this.#ctx.log.debug(`read chunk ${split.id}: ${rows.length} rows, ${r.merged} changes merged`, { chunk: split.id, rows: rows.length, merged: r.merged });
  }

  /** Starts the next chunk's read when none is running and at most one read chunk waits to be emitted. */
  #startNextRead(): void {
    const reading = this.#reads.some((r) => !r.result && r.error === undefined);
    if (reading || this.#reads.length >= 2 || this.#queue.length === 0) return;
    const split = this.#queue.shift()!;
    const read: ChunkRead<P> = { split, startedAt: Date.now() };
    this.#reads.push(read);
    const deps = { session: this.#session!, comparePositions: (a: P, b: P) => this.#dialect.comparePositions(a, b), logName: this.#dialect.logName };
    readChunk(this.#lastHigh !== undefined ? { ...deps, low: this.#lastHigh } : deps, split).then(
      (result) => {
        read.result = result;
        this.#lastHigh = result.high;
        // The next chunk is fetched while this one waits to be emitted.
        this.#startNextRead();
        this.#signal();
      },
      (error: unknown) => {
        read.error = error;
        this.#signal();
      },
    );
    // Ask for the next chunk while this one is read, so the reader never waits for the enumerator.
    if (this.#queue.length === 0) this.#request();
  }

  #openLog(): void {
    const split = this.#logSplit!;
    const d = this.#dialect;
    const session = this.#session!;
    const opened = async () => {
      // Schemas as the log phase begins, for tables the checkpoint has none of (a first start).
      const described = split.schemas === undefined || split.schemas.length === 0 ? ((await session.describeTables?.()) ?? []) : [];
      // Tables added later: what the patterns capture now, compared with the split's list below.
      if (d.scanNewlyAddedTables) this.#added = new AddedTableSnapshot(d, session, this.#ctx.parallelism);
      const now = this.#added ? await this.#added.discover() : [];
      return { log: await session.openLog(split.start, undefined, split.schemas), described, now };
    };
    this.#logOpening = opened().then(
      ({ log, described, now }) => {
        this.#ctx.log.info(`following ${d.logName} from ${d.formatPosition(split.start)}${split.maxHigh ? ` (dropping changes the snapshot's chunks hold, up to ${d.formatPosition(split.maxHigh)})` : ''}`);
        const setup = {
          comparePositions: (a: P, b: P) => d.comparePositions(a, b),
          formatPosition: (p: P) => d.formatPosition(p),
          includeSchemaChanges: d.includeSchemaChanges === true,
          info: (message: string, fields?: Record<string, unknown>) => this.#ctx.log.info(message, fields),
          warn: (message: string, fields?: Record<string, unknown>) => this.#ctx.log.warn(message, fields),
          figures: this.#figures,
          addTables: this.#added !== undefined,
        };
        const follower = new LogFollower(log, split, setup, described);
        this.#log = follower;
        log.useTrackedColumns?.((db, table) => follower.trackedColumns(db, table));
        if (this.#added) this.#log.reconcile(now, (db, table) => d.captures?.(db, table) ?? true, split.captured !== undefined);
        this.#discoverAt = Date.now() + DISCOVERY_INTERVAL_MS;
        this.#logReader = log;
        this.#log.available().then(() => this.#signal(), () => {});
        this.#signal();
      },
      (error: unknown) => {
        this.#logError = error;
        this.#signal();
      },
    );
  }

  /**
   * The log phase. While a chunk of an added table is read the log waits (its events stay
   * buffered), so every change the follower dropped as "in a chunk to come" is at or before that
   * chunk's HIGH. Between chunks the log is followed up to the last HIGH (or its end), so the
   * other tables keep streaming during an added table's snapshot.
   */
  #pollLog(log: LogFollower<P, S>, output: SourceOutput<CdcChangeRecord<S>>): InputStatus {
    const read = this.#addedRead;
    if (read) {
      if (read.error !== undefined) throw read.error;
      if (!read.done) return 'nothing';
      this.#addedRead = undefined;
      this.#applyAdded(log, read.done, output);
      return 'more';
    }
    const next = log.nextAdding;
    const caughtUp = this.#addedHigh === undefined || log.caughtUp || this.#dialect.comparePositions(log.position, this.#addedHigh) >= 0;
    if (next && caughtUp) {
      const state: { done?: AddedTableStep<P>; error?: unknown; settled: Promise<void> } = { settled: Promise.resolve() };
      state.settled = this.#added!.step(next, log.takeAddingDropsFrom()).then(
        (done) => void (state.done = done),
        (error: unknown) => void (state.error = error),
      );
      this.#addedRead = state;
      return 'nothing';
    }
    this.#maybeDiscover(log);
    return log.poll(output);
  }

  /** An added table's chunk: its rows and the follower's knowledge of its HIGH in one poll, so a checkpoint has both or neither. */
  #applyAdded(log: LogFollower<P, S>, step: AddedTableStep<P>, output: SourceOutput<CdcChangeRecord<S>>): void {
    if (step.kind === 'gone') {
      log.abandon(step.db, step.table, step.why);
      return;
    }
    const { split, result, plan } = step;
    const session = this.#session!;
    // A table found by the source before the log described it (PostgreSQL's unpublished tables;
    // MySQL's when the discovery runs before the log reader reaches its CREATE): its schema goes
    // first, so no row reaches a consumer that does not know its table's columns.
    if (step.schema && this.#dialect.includeSchemaChanges && log.trackedColumns(split.db, split.table) === undefined) {
      const schemaChange = { changes: [{ kind: 'create.table' as const }], schema: step.schema };
      output.collect({ op: 'ddl', before: null, after: null, source: session.snapshotSource(split, result.high, 0, result.readAt), schemaChange }, result.readAt);
    }
    for (let row = 0; row < result.rows.length; row++) {
      output.collect({ op: 'r', before: null, after: result.rows.at(row)!, source: session.snapshotSource(split, result.high, row, result.readAt) }, result.readAt);
    }
    this.#rows += result.rows.length;
    this.#chunks++;
    this.#merged += result.merged;
    this.#figures.count(split.db, split.table, 'r', result.rows.length);
    this.#addedHigh = result.high;
    // Known only from a poll after this chunk: the log is followed up to its HIGH before the next one.
    log.caughtUp = false;
    log.chunkRead(plan, { start: split.start, end: split.end, high: result.high });
    this.#ctx.log.debug(`read chunk ${split.id} of an added table: ${result.rows.length} rows, ${result.merged} changes merged`, { chunk: split.id, rows: result.rows.length });
    if (log.nextAdding === undefined) this.#releaseChunkReads();
  }

  /** Now and then the log's reader looks for added tables the log itself has not shown (PostgreSQL's unpublished ones). */
  #maybeDiscover(log: LogFollower<P, S>): void {
    if (!this.#added || this.#discovering || Date.now() < this.#discoverAt) return;
    this.#discovering = true;
    this.#added.discover().then(
      (tables: CdcTable[]) => {
        for (const t of tables) log.found(t.db, t.table, 'was found matching the source\'s patterns');
        this.#discovering = false;
        this.#discoverAt = Date.now() + DISCOVERY_INTERVAL_MS;
        this.#signal();
      },
      (error: unknown) => {
        this.#discovering = false;
        this.#discoverAt = Date.now() + DISCOVERY_INTERVAL_MS;
        this.#ctx.log.warn(`looking for tables added later failed; tried again in ${DISCOVERY_INTERVAL_MS / 1000} s: ${(error as Error).message}`);
      },
    );
  }

  #request(): void {
    if (this.#requested) return;
    this.#requested = true;
    this.#ctx.sendSplitRequest();
  }

  isAvailable(): Promise<void> {
    if (this.#addedRead) return this.#addedRead.settled;
    if (!this.#log) return new Promise((resolve) => (this.#wake = resolve));
    // An added table's next chunk, or a look for added tables, is due even while the log is idle.
    if (this.#added) return Promise.race([this.#log.available(), delay(this.#log.nextAdding ? 50 : Math.max(50, this.#discoverAt - Date.now()))]);
    return this.#log.available();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  snapshotState(checkpointId: number): CdcSplit<P>[] {
    const splits: CdcSplit<P>[] = [...this.#unacked.values()];
    // Chunks being read or waiting to be emitted are read again after a restore.
    for (const r of this.#reads) splits.push(r.split);
    splits.push(...this.#queue);
    const log = this.#log?.snapshot() ?? this.#logSplit;
    if (log) splits.push(log);
    if (this.#log) this.#checkpointPositions.set(checkpointId, log!.start);
    return splits;
  }

  notifyCheckpointComplete(checkpointId: number): void {
    const position = this.#checkpointPositions.get(checkpointId);
    for (const id of this.#checkpointPositions.keys()) if (id <= checkpointId) this.#checkpointPositions.delete(id);
    if (position !== undefined) this.#logReader?.checkpointComplete?.(position);
  }

  notifyCheckpointAborted(checkpointId: number): void {
    this.#checkpointPositions.delete(checkpointId);
  }

  metrics(): Record<string, number> {
    const b = this.#log;
    const prefix = this.#dialect.logMetricPrefix;
    return {
      snapshot_rows_emitted: this.#rows,
      snapshot_chunks_emitted: this.#chunks,
      snapshot_changes_merged: this.#merged,
      [`${prefix}_events`]: b?.events ?? 0,
      cdc_schema_changes: b?.schemaChanges ?? 0,
      [`${prefix}_changes`]: b?.changes ?? 0,
      // From the commit time of the last change read: grows while the source falls behind (second resolution).
      [`${prefix}_lag_seconds`]: b && b.lastEventTs > 0 && !b.caughtUp ? Math.max(0, (Date.now() - b.lastEventTs) / 1000) : 0,
      ...this.#logReader?.metrics?.(),
      ...this.#figures.metrics(),
    };
  }

  describeActivity(): string | ReaderActivity {
    const c = this.#reads.find((r) => !r.result) ?? this.#reads[0];
    if (c) {
      const phase = c.result ? 'emitting' : 'fetching';
      const table = `table ${c.split.db}.${c.split.table}`;
      return {
        description: `snapshot: ${phase} chunk ${c.split.index + 1} of ${table} [${String(c.split.start ?? '-inf')}, ${String(c.split.end ?? '+inf')}) (checkpoints pass meanwhile); ${this.#chunks} chunk(s), ${this.#rows.toLocaleString('en-US')} rows emitted`,
        subject: table,
        since: c.startedAt,
      };
    }
    if (this.#log) return `following ${this.#dialect.logName} at ${this.#dialect.formatPosition(this.#log.position)}; ${this.#log.changes.toLocaleString('en-US')} changes`;
    if (this.#logSplit) return `opening ${this.#dialect.logName}`;
    return this.#requested ? 'waiting for a snapshot chunk from the enumerator' : 'idle';
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#logOpening?.catch(() => {});
    await this.#addedRead?.settled;
    await this.#log?.close();
    await this.#added?.close();
    await this.#session?.close();
  }
}
