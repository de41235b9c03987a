import { describeRecord } from './describe-record.ts';

/** A record waited longer than the operator's timeout and there is no onTimeout handler (Flink's default AsyncFunction.timeout). */
export class AsyncTimeoutError extends Error {
  readonly operatorUid: string;
  readonly record: unknown;
  readonly timeoutMs: number;
  readonly attempts: number;

  constructor(operatorName: string, operatorUid: string, record: unknown, timeoutMs: number, attempts: number) {
    super(
      `async operator '${operatorName}' (uid ${operatorUid}): record ${describeRecord(record)} had no result within its timeout of ${timeoutMs} ms (${attempts} attempt${attempts === 1 ? '' : 's'}); give the operator a longer timeout, or an onTimeout handler that says what such a record becomes`,
    );
    this.name = 'AsyncTimeoutError';
    this.operatorUid = operatorUid;
    this.record = record;
    this.timeoutMs = timeoutMs;
    this.attempts = attempts;
  }
}
