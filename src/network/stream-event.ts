/**
 * What travels in a channel: buffers of records and events, strictly in order (an unaligned
 * barrier is the one exception: it is sent as a priority event and overtakes queued buffers).
 */
export type CheckpointType = 'checkpoint' | 'savepoint';

export interface CheckpointOptions {
  readonly type: CheckpointType;
  /** The barrier overtakes in-flight data; the overtaken data becomes channel state. */
  readonly unaligned: boolean;
  /** Aligned barrier that may switch to unaligned after this many ms of alignment (0: never). */
  readonly alignedTimeout: number;
  /** Absolute directory the subtasks write their state files to (chk-N or the savepoint's). */
  readonly targetDir: string;
  /**
   * Incremental checkpoints (execution.checkpointing.incremental): the latest completed checkpoint
   * when this one was triggered, which keyed state may build on (null: none yet, write a full
   * base); absent: a full canonical snapshot (a savepoint, or incremental checkpoints off).
   */
  readonly incrementalBase?: number | null;
}

export interface Barrier {
  readonly kind: 'barrier';
  readonly checkpointId: number;
  readonly timestamp: number;
  readonly options: CheckpointOptions;
}

/** The upstream subtask has emitted its last record; barriers may still follow (final checkpoint). */
export interface EndOfData {
  readonly kind: 'end-of-data';
}

/** A barrier whose checkpoint was aborted upstream: release the alignment without snapshotting. */
export interface CancelBarrier {
  readonly kind: 'cancel-barrier';
  readonly checkpointId: number;
}

/**
 * Event time has progressed to `timestamp` on this channel: no record with a timestamp at or
 * below it follows (Flink's Watermark). -Infinity is "none yet", Infinity the final one (Flink's
 * Long.MIN_VALUE and Long.MAX_VALUE). Not part of any checkpoint: after a restore watermarks start
 * again from the sources.
 */
export interface WatermarkEvent {
  readonly kind: 'watermark';
  readonly timestamp: number;
}

/**
 * The channel's producer has gone idle (no records, no watermarks for a while) or is active again
 * (Flink's WatermarkStatus): an idle channel does not hold back the receiver's watermark.
 */
export interface WatermarkStatusEvent {
  readonly kind: 'watermark-status';
  readonly idle: boolean;
}

export type StreamEvent = Barrier | EndOfData | CancelBarrier | WatermarkEvent | WatermarkStatusEvent;

export interface RecordBuffer {
  readonly kind: 'records';
  readonly records: unknown[];
  /** Serialized size when the buffer crossed a thread; 0 in-thread. */
  readonly bytes: number;
  /**
   * Each record's event-time timestamp (NO_TIMESTAMP where it has none), present only when some
   * record of the buffer has one: jobs without event time carry nothing.
   */
  readonly timestamps?: readonly number[];
}

export type ChannelItem = RecordBuffer | StreamEvent;
