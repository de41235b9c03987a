import { describeValue } from '../../serialization/describe-value.ts';

/** An event-time window got a record without a timestamp (Flink: "Record has Long.MIN_VALUE timestamp"). */
export class MissingTimestampError extends Error {
  readonly operator: string;
  /** The same records fail the same way after a restart: the job fails at once. */
  readonly unrecoverable = true;
  readonly uid: string;
  readonly record: string;

  constructor(operator: string, uid: string, record: unknown) {
    const rec = describeValue(record);
    super(
      `operator '${operator}' (uid ${uid}) puts records into event-time windows, but the record ${rec} has no timestamp: give the source a WatermarkStrategy ` +
        `(env.fromSource(source, { watermarks: WatermarkStrategy.forBoundedOutOfOrderness(...).withTimestampAssigner(...) })) or call assignTimestampsAndWatermarks(...) before keyBy`,
    );
    this.name = 'MissingTimestampError';
    this.operator = operator;
    this.uid = uid;
    this.record = rec;
  }
}
