import { blobKeyOf, type BlobKey, type BlobStore } from './blob-store.ts';

export class InMemoryBlobStore implements BlobStore {
  readonly #blobs = new Map<BlobKey, Uint8Array>();

  async put(bytes: Uint8Array): Promise<BlobKey> {
    const key = blobKeyOf(bytes);
    this.#blobs.set(key, bytes.slice());
    return key;
  }

  async get(key: BlobKey): Promise<Uint8Array | undefined> {
    return this.#blobs.get(key)?.slice();
  }

  async delete(key: BlobKey): Promise<void> {
    this.#blobs.delete(key);
  }
}
