import { describeRecord } from './describe-record.ts';

/** An async request failed and its retry strategy gave up (or had no retry for the error): the task fails. */
export class AsyncRequestError extends Error {
  readonly operatorUid: string;
  readonly record: unknown;
  readonly attempts: number;

  constructor(operatorName: string, operatorUid: string, record: unknown, attempts: number, cause: unknown) {
    const reason = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super(`async operator '${operatorName}' (uid ${operatorUid}): the request for record ${describeRecord(record)} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`, { cause });
    this.name = 'AsyncRequestError';
    this.operatorUid = operatorUid;
    this.record = record;
    this.attempts = attempts;
  }
}
