import type { Barrier } from '../../network/stream-event.ts';
import type { AbortReason } from './abort-reason.ts';
import type { AlignmentFigures } from './alignment-figures.ts';
import type { InFlightInput } from './in-flight-input.ts';

/** What the barrier handler asks of its task (Flink's CheckpointableTask). */
export interface CheckpointableTask {
  /**
   * Snapshot now. Aligned and at-least-once: every barrier is in. Unaligned: the first barrier is
   * in; `inFlight` fills with the overtaken records and settles when the last barrier arrives.
   */
  triggerSnapshot(barrier: Barrier, alignment: AlignmentFigures, inFlight?: InFlightInput): void;
  /** The checkpoint cannot complete in this task (a newer barrier overtook it, or it was cancelled). */
  abortCheckpoint(checkpointId: number, reason: AbortReason): void;
}
