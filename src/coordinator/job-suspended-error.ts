/** Why a JobMaster suspended its job: its JobManager lost leadership or is closing; the job goes on under a leader. */
export class JobSuspendedError extends Error {
  readonly jobId: string;
  readonly reason: string;

  constructor(jobId: string, reason: string) {
    super(`job ${jobId} suspended: ${reason}`);
    this.name = 'JobSuspendedError';
    this.jobId = jobId;
    this.reason = reason;
  }
}
