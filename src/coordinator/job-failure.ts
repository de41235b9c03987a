import type { SerializedError } from '../rpc/serialized-error.ts';

/** Why a job failed for good: the last cause, and how many restarts came before it. */
export class JobFailure extends Error {
  readonly jobId: string;
  readonly restarts: number;
  readonly causeInfo: SerializedError;
  constructor(jobId: string, cause: SerializedError, restarts: number, reason?: string) {
    super(`${reason ?? 'job failed'}${restarts > 0 ? ` after ${restarts} restart${restarts === 1 ? '' : 's'}` : ''}: ${cause.message}`);
    this.name = 'JobFailure';
    this.jobId = jobId;
    this.restarts = restarts;
    this.causeInfo = cause;
    if (cause.stack) this.stack = `${this.name}: ${this.message}\nCaused by: ${cause.stack}`;
  }
}
