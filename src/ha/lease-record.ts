/**
 * The leader record: who holds the lease (a contender id and session), its epoch, the address it
 * published, and how long its lease lasts. Per-key TTLs need NATS server 2.11, so expiry is not the
 * store's: readers judge it by their own clocks, from when they saw the record's revision change.
 * A released record keeps its epoch (holder null), so epochs only grow.
 */
export interface LeaseRecord {
  readonly holder: string | null;
  readonly sessionId: string | null;
  readonly epoch: number;
  readonly address: string | null;
  readonly leaseMs: number;
  /** Wall-clock times of the holder, for people reading the record; never used to judge expiry. */
  readonly acquiredAt: number;
  readonly renewedAt: number;
}

export function encodeLeaseRecord(record: LeaseRecord): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(record));
}

export function decodeLeaseRecord(bytes: Uint8Array): LeaseRecord | undefined {
  try {
    const r = JSON.parse(new TextDecoder().decode(bytes)) as LeaseRecord;
    return typeof r.epoch === 'number' && typeof r.leaseMs === 'number' ? r : undefined;
  } catch {
    return undefined;
  }
}
