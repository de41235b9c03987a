/** A checkpoint asked for by hand (REST, `weir checkpoint`) that could not be triggered or did not complete. */
export class CheckpointTriggerError extends Error {
  readonly jobId: string;
  readonly reason: string;
  constructor(jobId: string, reason: string) {
    super(`checkpoint of job ${jobId} failed: ${reason}`);
    this.name = 'CheckpointTriggerError';
    this.jobId = jobId;
    this.reason = reason;
  }
}
