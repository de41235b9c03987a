import type { NatsConnection } from '@nats-io/transport-node';
import { readObject } from './object-reads.ts';
import { writeObject } from './object-writes.ts';
import { checkBucketLayout, HA_LAYOUT_VERSION, type BucketLayout } from '../bucket-layout.ts';

/** The layout marker of an object store bucket (blobs, checkpoints) is an object of its own. */
export const LAYOUT_OBJECT = '_weir/layout';

/** Writes the marker into a fresh bucket, or checks the one there; `checkCluster` false for readers. */
export async function ensureObjectStoreLayout(nc: NatsConnection, bucket: string, clusterId: string, mode: 'write' | 'read'): Promise<void> {
  const expected = { clusterId, layout: HA_LAYOUT_VERSION };
  let bytes = await readObject(nc, bucket, LAYOUT_OBJECT);
  if (bytes === null) {
    if (mode === 'read') return; // a bucket weir never wrote to: whatever is asked for will be missing, and say so
    await writeObject(nc, bucket, LAYOUT_OBJECT, [new TextEncoder().encode(JSON.stringify({ ...expected, createdAt: Date.now() } satisfies BucketLayout))]);
    bytes = await readObject(nc, bucket, LAYOUT_OBJECT);
  }
  let found: unknown;
  try {
    found = JSON.parse(new TextDecoder().decode(bytes ?? new Uint8Array()));
  } catch {
    found = undefined;
  }
  checkBucketLayout(bucket, found, expected, mode === 'write');
}
