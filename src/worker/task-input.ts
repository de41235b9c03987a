import type { TaskActivity } from '../network/task-activity.ts';
import type { DataInputStatus } from './data-input-status.ts';
import type { SourceInput } from './source-input.ts';

/**
 * Everything a task reads, seen through one interface (Flink's StreamInputProcessor): a source's
 * reader, or the network with one or several logical inputs (connect, broadcast state). The task
 * takes a bounded number of steps of it per turn and never asks which kind it is.
 */
export interface TaskInput {
  /** How many processInput calls one turn of the task may make before it yields. */
  readonly stepBudget: number;
  /** One record batch, event or poll. */
  processInput(): DataInputStatus;
  readonly recordsIn: number;
  /** Bytes of buffers that came serialized (from another thread); in-thread buffers and sources bring none. */
  readonly bytesIn: number;
  /** Flink's inPoolUsage: the share of the input buffers in use (0 for a source). */
  readonly inPoolUsage: number;
  /** Buffer debloating's budget per input channel, when it is on (a source has none). */
  readonly debloated?: { readonly bytes?: number; readonly records?: number } | undefined;
  /** The task's input watermark; undefined when the head operator makes its own (a source). */
  readonly inputWatermark: number | undefined;
  /** What the task does while it runs normally: reading a source or processing input. */
  readonly runningActivity: Extract<TaskActivity['kind'], 'reading' | 'processing'>;
  /**
   * Unaligned checkpoints: priority barriers at the head of channels are taken now, even with the
   * outputs full (see NetworkInput). `stop`: a snapshot a barrier started must finish first.
   */
  takePriorityBarriers(stop: () => boolean): void;
  /** The checkpoint was aborted: alignment for it ends. */
  abortCheckpoint(checkpointId: number, reason: string): void;
  /** Which checkpoint is aligning and on what, for checkpoint reasons; undefined when none. */
  aligning(): Extract<TaskActivity, { kind: 'aligning' }> | undefined;
  /**
   * Whether event time has already ended on every channel (all brought the final watermark), so
   * the end of input needs no final watermark of the task's own.
   */
  readonly eventTimeEnded: boolean;
  /** The source reader, for a source task's mails, splits, positions and metrics; undefined otherwise. */
  readonly source: SourceInput | undefined;
}
