import type { Logger } from '../log/logger.ts';
import type { TaskInfo } from './functions.ts';
import type { OutputTag } from './output-tag.ts';

/**
 * A source in the FLIP-27 shape: splits are units of work with a position; readers read the
 * splits they are given and report them, with their positions, in every snapshot. A snapshot is
 * only ever taken between two pollNext calls, never inside one.
 */
export type Boundedness = 'bounded' | 'unbounded';

/** 'more': call again now; 'nothing': wait for isAvailable(); 'end': all splits are finished. */
export type InputStatus = 'more' | 'nothing' | 'end';

/**
 * Where a reader emits (Flink's ReaderOutput / SourceOutput). `timestamp` is the record's own
 * event time when the source knows one (a CDC change's commit time): a WatermarkStrategy's
 * timestamp assigner gets it as `recordTimestamp`, and without an assigner it is the record's
 * timestamp. The output weir hands to pollNext also makes per-split outputs, so that watermarks
 * are generated per split (each with its own generator, the reader's watermark being the minimum
 * over its splits that are not idle); wrappers may leave those out.
 */
export interface SourceOutput<T> {
  collect(value: T, timestamp?: number): void;
  /** The output of one split: the same one for the same id until it is released. */
  createOutputForSplit?(splitId: string): SourceOutput<T>;
  /** The split is finished: its watermark no longer holds the reader back. */
  releaseOutputForSplit?(splitId: string): void;
  /** Punctuated sources may emit watermarks themselves (Flink's SourceOutput.emitWatermark). */
  emitWatermark?(watermark: number): void;
  markIdle?(): void;
  markActive?(): void;
  /**
   * Emits to a side output of the source: the stream `fromSource(...).getSideOutput(tag)` (e.g.
   * records the reader could not read). Side records pass no watermark generator; a tag nothing
   * consumes drops them. Wrappers may leave it out: a reader must then fail rather than lose them.
   */
  output?<X>(tag: OutputTag<X>, value: X, timestamp?: number): void;
}

export interface SplitEnumeratorContext {
  readonly parallelism: number;
}

/** What a split enumerator (on the coordinator) can do to the source's readers. */
export interface EnumeratorContext<Split> extends SplitEnumeratorContext {
  readonly jobId: string;
  /** Whether the job takes periodic checkpoints (notifyCheckpointComplete will come). */
  readonly checkpointing: boolean;
  /** Lines go to the job's log with the source's vertex. */
  readonly log: Logger;
  /** Hands splits to a reader. Delivered in order with checkpoint triggers, so a split is either in the enumerator's snapshot or in the reader's, never in both or neither. */
  assignSplits(subtask: number, splits: Split[]): void;
  /** This reader will get no more splits; once its splits are finished it ends (bounded sources). */
  signalNoMoreSplits(subtask: number): void;
  sendEventToReader(subtask: number, event: unknown): void;
  /**
   * The source as a whole is catching up on a backlog (e.g. a CDC snapshot), so checkpoints follow
   * execution.checkpointing.interval-during-backlog (FLIP-309). Callable from the constructor, so
   * that it holds from the job's first checkpoint on.
   */
  setProcessingBacklog(backlog: boolean): void;
  /** An enumerator's own background failure: fails the job over (it restarts from the last checkpoint). */
  failJob(error: Error): void;
}

/**
 * Dynamic split assignment (FLIP-27's SplitEnumerator): lives on the coordinator, hands out splits
 * when readers ask, and is checkpointed with the job. Its snapshot is taken synchronously right
 * before the checkpoint's trigger messages go out, so handlers that await must change their state
 * only after the await, all at once.
 */
export interface SplitEnumerator<Split, State> {
  start?(): void | Promise<void>;
  /** A reader has nothing to read and asks for more. */
  handleSplitRequest(subtask: number): void | Promise<void>;
  handleSourceEvent?(subtask: number, event: unknown): void | Promise<void>;
  snapshotState(checkpointId: number): State;
  /**
   * `completion.unaligned`: some barrier of the checkpoint overtook records (unaligned or switched
   * after the aligned-checkpoint timeout), so records emitted before it may still be in flight.
   */
  notifyCheckpointComplete?(checkpointId: number, completion?: CheckpointCompletion): void | Promise<void>;
  /** Progress figures for metrics and the dashboard (name -> number). */
  metrics?(): Record<string, number>;
  close?(): void | Promise<void>;
}

/** What an enumerator learns about a completed checkpoint. */
export interface CheckpointCompletion {
  readonly unaligned: boolean;
}

export interface SourceReaderContext extends TaskInfo {
  /** Sources with an enumerator: ask it for splits (answered through addSplits or notifyNoMoreSplits). */
  sendSplitRequest(): void;
  sendSourceEvent(event: unknown): void;
}

export interface Source<T, Split = unknown, EnumState = unknown> {
  readonly boundedness: Boundedness;
  /** The splits of a fresh start; split i goes to subtask i mod parallelism. Runs on the coordinator. Unused when createEnumerator is given. */
  createSplits(ctx: SplitEnumeratorContext): Split[] | Promise<Split[]>;
  /** Dynamic assignment instead of createSplits: restored is the enumerator's state at the checkpoint restored from. */
  createEnumerator?(ctx: EnumeratorContext<Split>, restored: EnumState | undefined): SplitEnumerator<Split, EnumState>;
  createReader(ctx: SourceReaderContext): SourceReader<T, Split>;
  /**
   * For sources whose jobs must not lose checkpoints behind a backpressured sink (CDC): the
   * aligned-checkpoint timeout (ms) their jobs get for a checkpoint timeout of `checkpointTimeoutMs`,
   * with unaligned checkpoints enabled, when the job's settings name neither
   * execution.checkpointing.unaligned.enabled nor execution.checkpointing.aligned-checkpoint-timeout.
   */
  defaultAlignedCheckpointTimeout?(checkpointTimeoutMs: number): number;
}

/** A reader's account of its work: `subject` is what it reads (a table, a file), `since` when this work began (ms since the epoch). */
export interface ReaderActivity {
  readonly description: string;
  readonly subject?: string;
  readonly since?: number;
}

export interface SourceReader<T, Split> {
  start?(): void | Promise<void>;
  addSplits(splits: Split[]): void;
  notifyNoMoreSplits(): void;
  /** Emits zero or more records (a small batch at most) and says what to do next. */
  pollNext(output: SourceOutput<T>): InputStatus;
  /** Resolves when pollNext has something to give after it returned 'nothing'. */
  isAvailable(): Promise<void>;
  /**
   * The reader's splits with their current positions: everything emitted so far is before them.
   * `checkpointId` is -1 when no checkpoint asks (weir reads the positions for an at-most-once restart).
   */
  snapshotState(checkpointId: number): Split[];
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  notifyCheckpointAborted?(checkpointId: number): void;
  /** An event from the source's enumerator. */
  handleSourceEvent?(event: unknown): void;
  /**
   * Watermark alignment (FLIP-217): stop and go on reading these splits (ids as given to
   * createOutputForSplit). A reader without it is paused as a whole while it runs ahead.
   */
  pauseOrResumeSplits?(toPause: readonly string[], toResume: readonly string[]): void;
  /** Progress figures for metrics (name -> number), summed over subtasks by the coordinator. */
  metrics?(): Record<string, number>;
  /** What the reader is doing now, for progress and checkpoint reasons: a sentence, or one with what it reads and since when. */
  describeActivity?(): string | ReaderActivity;
  close?(): void | Promise<void>;
}
