/**
 * A record's event-time timestamp travels beside it, not in it (Flink's StreamRecord timestamp):
 * in a chain it is the task's current one, set where a record enters (a source, a channel, a timer)
 * and read where a record leaves (a channel); functions in between pass it on by not touching it.
 *
 * -Infinity means "no timestamp" (Flink's Long.MIN_VALUE marker): no valid timestamp is infinite,
 * so a plain comparison tells the two apart.
 */
export const NO_TIMESTAMP = -Infinity;

/** The current record's timestamp in one task: one mutable slot shared by its chain and writers. */
export class RecordTimestamp {
  current = NO_TIMESTAMP;
}
