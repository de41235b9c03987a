/** Why checkpoints brought the job down: the tolerable failure count was exceeded. */
export class CheckpointFailureError extends Error {
  readonly checkpointId: number;
  readonly consecutiveFailures: number;
  constructor(checkpointId: number, consecutiveFailures: number, tolerable: number, lastReason: string) {
    super(
      `exceeded checkpoint tolerable failure threshold (${consecutiveFailures} consecutive failures, execution.checkpointing.tolerable-failed-checkpoints is ${tolerable}); last: ${lastReason}`,
    );
    this.name = 'CheckpointFailureError';
    this.checkpointId = checkpointId;
    this.consecutiveFailures = consecutiveFailures;
  }
}
