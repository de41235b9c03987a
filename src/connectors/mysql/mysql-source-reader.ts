import type { InputStatus, ReaderActivity, SourceOutput, SourceReader, SourceReaderContext } from '../../api/source.ts';
import { BinlogFollower } from './binlog-follower.ts';
import { formatBinlogPosition } from './binlog-position.ts';
import type { BinlogSplit, CdcSourceEvent, CdcSplit, FinishedReport, LogPosition, SnapshotSplit } from './cdc-split.ts';
import type { ChangeRecord } from './change-record.ts';
import type { ChunkReadDeps, ChunkResult } from './snapshot-chunk-reader.ts';
import { readChunk } from './snapshot-chunk-reader.ts';
import type { BinlogClient } from './binlog-client.ts';

export interface ReaderDeps {
  /** Connects and gives what chunk reads need (called once, at start). */
  readonly chunkReads: () => Promise<ChunkReadDeps & { close(): Promise<void> }>;
  readonly openBinlog: (split: BinlogSplit) => Promise<BinlogClient>;
}

interface ChunkRead {
  readonly split: SnapshotSplit;
  readonly startedAt: number;
  result?: ChunkResult;
  error?: unknown;
}

/**
 * One parallel reader of the CDC source. Snapshot chunks are read asynchronously, so barriers pass
 * while a chunk is being fetched; a fetched chunk is emitted whole in one poll, so a checkpoint
 * holds a chunk either not at all (re-read after a restore) or completely (reported finished).
 */
export class MySqlSourceReader implements SourceReader<ChangeRecord, CdcSplit> {
  readonly #ctx: SourceReaderContext;
  readonly #deps: ReaderDeps;
  #chunkDeps: (ChunkReadDeps & { close(): Promise<void> }) | undefined;
  readonly #queue: SnapshotSplit[] = [];
  /** Chunk reads in order: read one at a time, the next while the one before is emitted. */
  readonly #reads: ChunkRead[] = [];
  /** The last chunk's HIGH: the next chunk's LOW (any position before its SELECT will do). */
  #lastHigh: LogPosition | undefined;
  readonly #unacked = new Map<string, FinishedReport>();
  #binlogSplit: BinlogSplit | undefined;
  #binlog: BinlogFollower | undefined;
  #binlogOpening: Promise<void> | undefined;
  #binlogError: unknown;
  #requested = false;
  #wake: (() => void) | undefined;
  #rows = 0;
  #chunks = 0;
  #merged = 0;
  #closed = false;

  constructor(ctx: SourceReaderContext, deps: ReaderDeps) {
    this.#ctx = ctx;
    this.#deps = deps;
  }

  async start(): Promise<void> {
    this.#chunkDeps = await this.#deps.chunkReads();
  }

  addSplits(splits: CdcSplit[]): void {
    this.#requested = false;
    for (const s of splits) {
      if (s.kind === 'snapshot') {
        this.#queue.push(s);
      } else if (s.kind === 'finished') {
        // Restored: the enumerator may not have had this report in its own snapshot.
        this.#unacked.set(s.id, s);
        this.#ctx.sendSourceEvent({ kind: 'chunks-finished', chunks: [s.chunk] } satisfies CdcSourceEvent);
      } else {
        this.#binlogSplit = s;
      }
    }
    this.#signal();
  }

  notifyNoMoreSplits(): void {}

  handleSourceEvent(event: unknown): void {
    const e = event as CdcSourceEvent;
    if (e.kind === 'chunks-acknowledged') for (const id of e.ids) this.#unacked.delete(id);
  }

  pollNext(output: SourceOutput<ChangeRecord>): InputStatus {
    const head = this.#reads[0];
    if (head?.error !== undefined) throw head.error;
    if (this.#binlogError !== undefined) throw this.#binlogError;
    if (head?.result) {
      this.#reads.shift();
      this.#emitChunk(head.split, head.result, output);
      this.#startNextRead();
      return 'more';
    }
    this.#startNextRead();
    if (this.#binlog) return this.#binlog.poll(output);
    if (this.#binlogSplit && !this.#binlogOpening && this.#reads.length === 0) this.#openBinlog();
    if (this.#reads.length === 0 && this.#queue.length === 0 && !this.#binlogSplit) this.#request();
    return 'nothing';
  }

  #emitChunk(split: SnapshotSplit, r: ChunkResult, output: SourceOutput<ChangeRecord>): void {
    const { db, table } = split;
    const { file, pos, gtid } = r.high;
    const ts = r.readAt;
    const rows = r.rows;
    // One object literal per record: spreading a shared source object costs several times more.
    for (let row = 0; row < rows.length; row++) {
      const source = gtid !== undefined ? { db, table, file, pos, row, gtid, ts, snapshot: true } : { db, table, file, pos, row, ts, snapshot: true };
      output.collect({ op: 'r', before: null, after: rows[row]!, source }, ts);
    }
    const report: FinishedReport = {
      kind: 'finished',
      id: split.id,
      chunk: { id: split.id, db, table, index: split.index, start: split.start, end: split.end, high: r.high, rows: rows.length },
    };
    this.#unacked.set(split.id, report);
    this.#rows += rows.length;
    this.#chunks++;
    this.#merged += r.merged;
    this.#ctx.sendSourceEvent({ kind: 'chunks-finished', chunks: [report.chunk] } satisfies CdcSourceEvent);
    this.#ctx.log.debug(`read chunk ${split.id}: ${rows.length} rows, ${r.merged} changes merged`, { chunk: split.id, rows: rows.length, merged: r.merged });
  }

  /** Starts the next chunk's read when none is running and at most one read chunk waits to be emitted. */
  #startNextRead(): void {
    const reading = this.#reads.some((r) => !r.result && r.error === undefined);
    if (reading || this.#reads.length >= 2 || this.#queue.length === 0) return;
    const split = this.#queue.shift()!;
    const read: ChunkRead = { split, startedAt: Date.now() };
    this.#reads.push(read);
    const deps = this.#chunkDeps!;
    readChunk(this.#lastHigh ? { ...deps, low: this.#lastHigh } : deps, split).then(
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

  #openBinlog(): void {
    const split = this.#binlogSplit!;
    this.#binlogOpening = this.#deps.openBinlog(split).then(
      (client) => {
        const at = split.start.file !== undefined ? formatBinlogPosition(split.start as never) : `gtid ${split.start.gtid}`;
        this.#ctx.log.info(`following the binlog from ${at}${split.maxHigh ? ` (dropping changes the snapshot's chunks hold, up to ${formatBinlogPosition(split.maxHigh)})` : ''}`);
        this.#binlog = new BinlogFollower(client, split);
        this.#binlog.available().then(() => this.#signal(), () => {});
        this.#signal();
      },
      (error: unknown) => {
        this.#binlogError = error;
        this.#signal();
      },
    );
  }

  #request(): void {
    if (this.#requested) return;
    this.#requested = true;
    this.#ctx.sendSplitRequest();
  }

  isAvailable(): Promise<void> {
    if (this.#binlog) return this.#binlog.available();
    return new Promise((resolve) => (this.#wake = resolve));
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  snapshotState(): CdcSplit[] {
    const splits: CdcSplit[] = [...this.#unacked.values()];
    // Chunks being read or waiting to be emitted are read again after a restore.
    for (const r of this.#reads) splits.push(r.split);
    splits.push(...this.#queue);
    if (this.#binlog) splits.push(this.#binlog.snapshot());
    else if (this.#binlogSplit) splits.push(this.#binlogSplit);
    return splits;
  }

  metrics(): Record<string, number> {
    const b = this.#binlog;
    return {
      snapshot_rows_emitted: this.#rows,
      snapshot_chunks_emitted: this.#chunks,
      snapshot_changes_merged: this.#merged,
      binlog_events: b?.events ?? 0,
      binlog_changes: b?.changes ?? 0,
      // From the commit time of the last change read: grows while the source falls behind (second resolution).
      binlog_lag_seconds: b && b.lastEventTs > 0 && !b.caughtUp ? Math.max(0, (Date.now() - b.lastEventTs) / 1000) : 0,
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
    if (this.#binlog) {
      const p = this.#binlog.position;
      return `following the binlog at ${'file' in p && p.file ? formatBinlogPosition(p as never) : `gtid ${p.gtid}`}; ${this.#binlog.changes.toLocaleString('en-US')} changes`;
    }
    if (this.#binlogSplit) return 'opening the binlog';
    return this.#requested ? 'waiting for a snapshot chunk from the enumerator' : 'idle';
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#binlogOpening?.catch(() => {});
    await this.#binlog?.close();
    await this.#chunkDeps?.close();
  }
}
