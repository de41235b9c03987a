/**
 * A value stored with the time it was last written (or read, with OnReadAndWrite): what a state
 * with a time to live keeps, per value, per list element and per map entry (Flink's TtlValue).
 * Short field names: there is one of these per stored element.
 */
export interface TtlValue<T> {
  readonly v: T;
  readonly t: number;
}

/** Flink's TtlUtils.expired: an entry is gone once its last access plus the TTL is no later than now. */
export function isExpired(timestamp: number, ttlMs: number, now: number): boolean {
  return timestamp + ttlMs <= now;
}
