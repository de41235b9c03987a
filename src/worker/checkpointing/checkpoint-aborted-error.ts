import type { AbortReason } from './abort-reason.ts';

/**
 * Why the in-flight input of an unaligned checkpoint will never be complete: the checkpoint was
 * aborted in this task. The message is the reason alone, as the task reports it on.
 */
export class CheckpointAbortedError extends Error {
  readonly checkpointId: number;
  readonly reason: AbortReason;

  constructor(checkpointId: number, reason: AbortReason) {
    super(reason.message);
    this.name = 'CheckpointAbortedError';
    this.checkpointId = checkpointId;
    this.reason = reason;
  }
}
