import { describeValue } from '../serialization/describe-value.ts';

/**
 * A record's event-time timestamp is not a finite number: NaN, an infinity or not a number at
 * all (a string from a parsed field, a Date). Negative ones, before 1970, are valid. Names the
 * operator that assigned it and the record.
 */
export class InvalidTimestampError extends Error {
  readonly operator: string;
  /** The same records fail the same way after a restart: the job fails at once. */
  readonly unrecoverable = true;
  readonly uid: string;
  /** What the timestamp was (`number NaN`, `string "1700000000"`). */
  readonly timestamp: string;
  /** What the record was, short (`object {user, ts}`). */
  readonly record: string;

  constructor(operator: string, uid: string, timestamp: unknown, record: unknown, by: 'timestamp assigner' | 'source') {
    const ts = describeValue(timestamp);
    const rec = describeValue(record);
    super(
      `the ${by} of '${operator}' (uid ${uid}) gave the record ${rec} the timestamp ${ts}: event-time timestamps must be finite numbers of milliseconds (negative ones are fine)` +
        (typeof timestamp === 'string' ? '; convert it with Number(...) or Date.parse(...)' : typeof timestamp === 'object' && timestamp instanceof Date ? '; use date.getTime()' : ''),
    );
    this.name = 'InvalidTimestampError';
    this.operator = operator;
    this.uid = uid;
    this.timestamp = ts;
    this.record = rec;
  }
}
