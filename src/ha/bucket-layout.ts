import { BucketLayoutError } from './bucket-layout-error.ts';
import { KeyValueConflictError } from './key-value-conflict-error.ts';
import type { VersionedKeyValueStore } from './versioned-key-value-store.ts';

/**
 * The layout of weir's records in a bucket (keys, record shapes); a weir that changes them bumps
 * it, and refuses buckets of another version rather than misreading them. Stream metadata would
 * hold this on NATS 2.10+, so on 2.9 it is a marker record in the bucket itself.
 */
export const HA_LAYOUT_VERSION = 1;
export const LAYOUT_KEY = 'weir.layout';

export interface BucketLayout {
  readonly layout: number;
  readonly clusterId: string;
  readonly createdAt: number;
}

/** Checks a marker against what this weir expects; `checkCluster` false for readers (a restore from another cluster's savepoint). */
export function checkBucketLayout(bucket: string, found: unknown, expected: { clusterId: string; layout: number }, checkCluster = true): void {
  const f = found as Partial<BucketLayout> | undefined;
  if (!f || typeof f.layout !== 'number' || typeof f.clusterId !== 'string') throw new BucketLayoutError('NOT_WEIR', bucket, expected, {});
  if (f.layout !== expected.layout) throw new BucketLayoutError('INCOMPATIBLE_LAYOUT', bucket, expected, { clusterId: f.clusterId, layout: f.layout });
  if (checkCluster && f.clusterId !== expected.clusterId) throw new BucketLayoutError('OTHER_CLUSTER', bucket, expected, { clusterId: f.clusterId, layout: f.layout });
}

/** Writes the marker into a fresh bucket, or checks the one there. */
export async function ensureKeyValueLayout(store: VersionedKeyValueStore, bucket: string, clusterId: string): Promise<void> {
  const expected = { clusterId, layout: HA_LAYOUT_VERSION };
  for (;;) {
    const entry = await store.get(LAYOUT_KEY);
    if (entry) {
      let found: unknown;
      try {
        found = JSON.parse(new TextDecoder().decode(entry.value));
      } catch {
        found = undefined;
      }
      checkBucketLayout(bucket, found, expected);
      return;
    }
    try {
      await store.create(LAYOUT_KEY, new TextEncoder().encode(JSON.stringify({ ...expected, createdAt: Date.now() } satisfies BucketLayout)));
      return;
    } catch (e) {
      if (!(e instanceof KeyValueConflictError)) throw e; // another JobManager wrote it first: check theirs
    }
  }
}
