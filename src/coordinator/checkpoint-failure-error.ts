/** Why checkpoints brought the job down: the tolerable failure count was exceeded. */
export class CheckpointFailureError extends Error {
  /** The last failed checkpoint; undefined when it failed before it got an id (the id counter did not answer). */
  readonly checkpointId: number | undefined;
  readonly consecutiveFailures: number;
  constructor(checkpointId: number | undefined, consecutiveFailures: number, tolerable: number, lastReason: string) {
    super(
      `exceeded checkpoint tolerable failure threshold (${consecutiveFailures} consecutive failures, execution.checkpointing.tolerable-failed-checkpoints is ${tolerable}); last: ${lastReason}`,
    );
    this.name = 'CheckpointFailureError';
    this.checkpointId = checkpointId;
    this.consecutiveFailures = consecutiveFailures;
  }
}
