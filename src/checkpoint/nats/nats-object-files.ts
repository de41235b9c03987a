import { createReadStream } from 'node:fs';
import { mkdir, open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { ObjectStore } from '@nats-io/obj';
import type { WeirConfig } from '../../config/configuration.ts';
import { openObjectBucket } from '../../ha/nats/nats-buckets.ts';
import { acquireNatsConnection, type NatsConnectionLease } from '../../ha/nats/nats-connections.ts';
import { natsSettings } from '../../ha/nats/nats-settings.ts';
import { listObjectNames } from '../../ha/nats/object-names.ts';
import { deleteObject } from '../../ha/nats/object-deletes.ts';
import { readObjectChunks } from '../../ha/nats/object-reads.ts';
import { writeFully } from '../../fs/write-fully.ts';
import { ensureObjectStoreLayout, LAYOUT_OBJECT } from '../../ha/nats/object-store-layout.ts';
import { ObjectStoreTimeoutError, ProgressDeadline } from './progress-deadline.ts';
import { writeObject } from '../../ha/nats/object-writes.ts';

/**
 * Chunks of 256 KiB: writeObject awaits every chunk's acknowledgement, so fewer, larger chunks
 * write faster (the server's max_payload is 1 MiB by default).
 */
const CHUNK_BYTES = 256 * 1024;

/**
 * Files in JetStream object store buckets, for checkpoint storage: one connection (shared in the
 * process, from state.checkpoints.nats.servers or high-availability.nats.servers) taken on first
 * use and released by close(); buckets opened once, created with high-availability.nats.replicas
 * and their layout marker checked before weir writes to them.
 */
export class NatsObjectFiles {
  readonly #config: WeirConfig;
  #lease: Promise<NatsConnectionLease> | undefined;
  readonly #buckets = new Map<string, Promise<ObjectStore | undefined>>();
  readonly #checked = new Set<string>();

  constructor(config: WeirConfig) {
    this.#config = config;
  }

  /** The bucket, made if missing when `mode` is write; undefined when reading one that does not exist. */
  async bucket(name: string, mode: 'write' | 'read'): Promise<ObjectStore | undefined> {
    return this.#deadline('open', name, undefined).race(this.#bucket(name, mode));
  }

  async #bucket(name: string, mode: 'write' | 'read'): Promise<ObjectStore | undefined> {
    const lease = await this.#connection();
    let os = this.#buckets.get(name);
    if (!os || (mode === 'write' && (await os) === undefined)) {
      os = openObjectBucket(lease.connection, name, this.#config['high-availability.nats.replicas'], mode === 'write');
      this.#buckets.set(name, os);
      os.catch(() => this.#buckets.delete(name));
    }
    const store = await os;
    const check = `${name}:${mode}`;
    if (store && !this.#checked.has(check)) {
      await ensureObjectStoreLayout(lease.connection, name, this.#config['high-availability.cluster-id'], mode);
      this.#checked.add(check);
    }
    return store;
  }

  async upload(bucket: string, name: string, localPath: string): Promise<void> {
    await this.#write(bucket, name, createReadStream(localPath, { highWaterMark: CHUNK_BYTES }));
  }

  async uploadBytes(bucket: string, name: string, bytes: Uint8Array): Promise<void> {
    await this.#write(bucket, name, [bytes]);
  }

  async #write(bucket: string, name: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    await this.bucket(bucket, 'write');
    const deadline = this.#deadline('upload', bucket, name);
    const lease = await this.#connection();
    await deadline.race(writeObject(lease.connection, bucket, name, source, { chunkBytes: CHUNK_BYTES, onChunk: () => deadline.touch() }));
  }

  /** Downloads an object into a file (its size and digest checked); false when there is none. */
  async download(bucket: string, name: string, localPath: string): Promise<boolean> {
    const os = await this.bucket(bucket, 'read');
    if (!os) return false;
    const deadline = this.#deadline('download', bucket, name);
    const lease = await this.#connection();
    await mkdir(dirname(localPath), { recursive: true });
    const file = await open(localPath, 'w');
    let offset = 0;
    try {
      const found = await deadline.race(
        readObjectChunks(lease.connection, bucket, name, async (chunk) => {
          deadline.touch();
          await writeFully(file, chunk, { path: localPath, offset });
          offset += chunk.length;
        }),
      );
      if (!found) await rm(localPath, { force: true });
      return found;
    } finally {
      await file.close();
    }
  }

  /**
   * Names of the objects below `prefix/` (every object when prefix is ''). From the stream's
   * subjects as its leader answers them, not the client's list(): that one reads an ordered
   * consumer until the count it was told, and a stream whose replicas are catching up after a
   * restart may tell it zero, so a complete checkpoint would look empty. weir's deletes remove an
   * object's metadata message, so every subject left is an object.
   */
  async list(bucket: string, prefix: string): Promise<string[]> {
    const os = await this.bucket(bucket, 'read');
    if (!os) return [];
    const below = prefix === '' ? '' : `${prefix}/`;
    const lease = await this.#connection();
    return (await this.#deadline('list', bucket, prefix || undefined).race(listObjectNames(lease.connection, bucket))).filter((n) => n !== LAYOUT_OBJECT && n.startsWith(below)).sort();
  }

  async delete(bucket: string, name: string): Promise<void> {
    const os = await this.bucket(bucket, 'read');
    if (os) await this.#deadline('delete', bucket, name).race(this.#connection().then((lease) => deleteObject(lease.connection, bucket, name)));
  }

  async deleteBelow(bucket: string, prefix: string): Promise<void> {
    const names = await this.list(bucket, prefix);
    if (names.length === 0) return;
    const lease = await this.#connection();
    for (const name of names) await this.#deadline('delete', bucket, name).race(deleteObject(lease.connection, bucket, name));
  }

  #deadline(operation: string, bucket: string, object: string | undefined): ProgressDeadline {
    const ms = this.#config['state.checkpoints.nats.timeout'];
    return new ProgressDeadline(ms, () => new ObjectStoreTimeoutError(operation, bucket, object, ms));
  }

  async close(): Promise<void> {
    const lease = this.#lease;
    this.#lease = undefined;
    this.#buckets.clear();
    this.#checked.clear();
    if (lease) await (await lease.catch(() => undefined))?.release();
  }

  #connection(): Promise<NatsConnectionLease> {
    if (!this.#lease) {
      this.#lease = acquireNatsConnection(natsSettings(this.#config, 'checkpoints'));
      this.#lease.catch(() => (this.#lease = undefined));
    }
    return this.#lease;
  }
}
