/** A record waiting for its results in an async operator: its input and timestamp are what a checkpoint keeps. */
export interface RecordEntry {
  readonly input: unknown;
  /** The record's event-time timestamp (NO_TIMESTAMP: none); its results carry it. */
  readonly timestamp: number;
  /** Set once the request completed. */
  results: readonly unknown[] | undefined;
}

/** Where entries go when they may leave the queue. */
export interface QueueOutput {
  record(entry: RecordEntry): void;
  watermark(watermark: number): void;
}

/**
 * The records of an async operator waiting for results, and the watermarks between them (Flink's
 * StreamElementQueue). Ordered: entries leave in the order they came. Unordered: a record leaves
 * when complete, but never across a watermark, which leaves once everything before it has.
 */
export interface StreamElementQueue {
  addRecord(entry: RecordEntry): void;
  addWatermark(watermark: number): void;
  /** The request of `entry` completed with `results`. */
  complete(entry: RecordEntry, results: readonly unknown[]): void;
  /** Emits every entry that may leave now, in the order it must. */
  emitCompleted(output: QueueOutput): void;
  /** Records in the queue (complete or not); watermarks take no room. */
  readonly size: number;
  /** No record and no watermark left. */
  readonly isEmpty: boolean;
  /** The records still in the queue, oldest first (what a checkpoint keeps). */
  records(): RecordEntry[];
}
