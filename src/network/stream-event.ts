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

export type StreamEvent = Barrier | EndOfData | CancelBarrier;

export interface RecordBuffer {
  readonly kind: 'records';
  readonly records: unknown[];
  /** Serialized size when the buffer crossed a thread; 0 in-thread. */
  readonly bytes: number;
  /** Each record's key group where the sender computed it (a keyed edge), so the receiver need not hash the key again. */
  readonly keyGroups?: readonly number[];
}

export type ChannelItem = RecordBuffer | StreamEvent;
