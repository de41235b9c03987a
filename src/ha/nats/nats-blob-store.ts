import type { NatsConnection } from '@nats-io/transport-node';
import { blobKeyOf, type BlobKey, type BlobStore } from '../blob-store.ts';
import { HaStorageError } from '../ha-storage-error.ts';
import { translateNatsError } from './nats-errors.ts';
import { deleteObject } from './object-deletes.ts';
import { readObject, readObjectMeta } from './object-reads.ts';
import { writeObject } from './object-writes.ts';

/** Job bundles in a JetStream object store, named by their content hash. */
export class NatsBlobStore implements BlobStore {
  readonly #nc: NatsConnection;
  readonly #bucket: string;
  readonly #description: string;

  constructor(nc: NatsConnection, bucket: string, description: string) {
    this.#nc = nc;
    this.#bucket = bucket;
    this.#description = description;
  }

  async put(bytes: Uint8Array): Promise<BlobKey> {
    const key = blobKeyOf(bytes);
    try {
      const existing = await readObjectMeta(this.#nc, this.#bucket, key);
      if (existing && existing.size === bytes.length) return key;
      await writeObject(this.#nc, this.#bucket, key, [bytes]);
      return key;
    } catch (e) {
      throw translateNatsError(e, 'put', key, this.#description, 0);
    }
  }

  async get(key: BlobKey): Promise<Uint8Array | undefined> {
    let bytes: Uint8Array | null;
    try {
      bytes = await readObject(this.#nc, this.#bucket, key);
    } catch (e) {
      throw translateNatsError(e, 'get', key, this.#description, 0);
    }
    if (bytes === null) return undefined;
    if (blobKeyOf(bytes) !== key) throw new HaStorageError('CORRUPTED', 'get', key, this.#description, 'the bytes read back do not have the hash they are named by');
    return bytes;
  }

  async delete(key: BlobKey): Promise<void> {
    try {
      await deleteObject(this.#nc, this.#bucket, key);
    } catch (e) {
      throw translateNatsError(e, 'delete', key, this.#description, 0);
    }
  }
}
