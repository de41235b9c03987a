/** A savepoint that could not be taken: names the job and why. */
export class SavepointError extends Error {
  readonly jobId: string;
  constructor(jobId: string, reason: string) {
    super(`savepoint of job ${jobId} failed: ${reason}`);
    this.name = 'SavepointError';
    this.jobId = jobId;
  }
}
