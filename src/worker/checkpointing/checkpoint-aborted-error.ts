/**
 * Why the in-flight input of an unaligned checkpoint will never be complete: the checkpoint was
 * aborted in this task. The message is the reason alone, as the task reports it on.
 */
export class CheckpointAbortedError extends Error {
  readonly checkpointId: number;
  readonly reason: string;

  constructor(checkpointId: number, reason: string) {
    super(reason);
    this.name = 'CheckpointAbortedError';
    this.checkpointId = checkpointId;
    this.reason = reason;
  }
}
