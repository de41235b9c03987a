import { createHash } from 'node:crypto';

/** `sha256-<hex>`: a blob is named by its content, so storing the same bundle twice stores it once. */
export type BlobKey = `sha256-${string}`;

export function blobKeyOf(bytes: Uint8Array): BlobKey {
  return `sha256-${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * Job bundles where every JobManager finds them (Flink's BlobStore behind its BlobServer): a new
 * leader deploys a job whose JobManager is gone from the bundle its submission points to.
 */
export interface BlobStore {
  put(bytes: Uint8Array): Promise<BlobKey>;
  /** The blob's bytes, checked against its key; undefined when there is none. */
  get(key: BlobKey): Promise<Uint8Array | undefined>;
  delete(key: BlobKey): Promise<void>;
}
