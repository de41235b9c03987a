/**
 * An interval join got a record without an event-time timestamp: it joins by timestamps, so the
 * job must assign them (assignTimestampsAndWatermarks, or a source that stamps its records). A
 * restart would meet the same record: the job fails at once.
 */
export class IntervalJoinError extends Error {
  readonly operator: string;
  readonly uid: string;
  /** 0: the left (first) input, 1: the right. */
  readonly input: 0 | 1;
  readonly definedAt: string | undefined;
  readonly unrecoverable = true;

  constructor(operator: string, uid: string, input: 0 | 1, definedAt: string | undefined) {
    super(
      `operator '${operator}' (uid ${uid}): a record of its ${input === 0 ? 'left' : 'right'} input has no timestamp; an interval join joins by event time, so assign timestamps and watermarks before it${definedAt ? ` (joined at ${definedAt})` : ''}`,
    );
    this.name = 'IntervalJoinError';
    this.operator = operator;
    this.uid = uid;
    this.input = input;
    this.definedAt = definedAt;
  }
}
