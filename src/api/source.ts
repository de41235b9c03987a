import type { TaskInfo } from './functions.ts';

/**
 * A source in the FLIP-27 shape: splits are units of work with a position; readers read the
 * splits they are given and report them, with their positions, in every snapshot. A snapshot is
 * only ever taken between two pollNext calls, never inside one.
 */
export type Boundedness = 'bounded' | 'unbounded';

/** 'more': call again now; 'nothing': wait for isAvailable(); 'end': all splits are finished. */
export type InputStatus = 'more' | 'nothing' | 'end';

export interface SourceOutput<T> {
  collect(value: T): void;
}

export interface SplitEnumeratorContext {
  readonly parallelism: number;
}

export interface SourceReaderContext extends TaskInfo {
  /** Tells the coordinator whether this reader is catching up on a backlog (e.g. a table snapshot). */
  setProcessingBacklog(backlog: boolean): void;
}

export interface Source<T, Split = unknown> {
  readonly boundedness: Boundedness;
  /** The splits of a fresh start; split i goes to subtask i mod parallelism. Runs on the coordinator. */
  createSplits(ctx: SplitEnumeratorContext): Split[] | Promise<Split[]>;
  createReader(ctx: SourceReaderContext): SourceReader<T, Split>;
}

export interface SourceReader<T, Split> {
  start?(): void | Promise<void>;
  addSplits(splits: Split[]): void;
  notifyNoMoreSplits(): void;
  /** Emits zero or more records (a small batch at most) and says what to do next. */
  pollNext(output: SourceOutput<T>): InputStatus;
  /** Resolves when pollNext has something to give after it returned 'nothing'. */
  isAvailable(): Promise<void>;
  /** The reader's splits with their current positions: everything emitted so far is before them. */
  snapshotState(checkpointId: number): Split[];
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  notifyCheckpointAborted?(checkpointId: number): void;
  /** A short description of what the reader is doing now, for progress and checkpoint reasons. */
  describeActivity?(): string;
  close?(): void | Promise<void>;
}
