import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { ObjectStore } from '@nats-io/obj';
import type { WeirConfig } from '../../config/configuration.ts';
import { openObjectBucket } from '../../ha/nats/nats-buckets.ts';
import { acquireNatsConnection, type NatsConnectionLease } from '../../ha/nats/nats-connections.ts';
import { natsSettings } from '../../ha/nats/nats-settings.ts';
import { deleteObject } from '../../ha/nats/object-names.ts';
import { ensureObjectStoreLayout, LAYOUT_OBJECT } from '../../ha/nats/object-store-layout.ts';

/**
 * Chunks of 256 KiB: the client awaits every chunk's acknowledgement, so fewer, larger chunks
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
      await ensureObjectStoreLayout(store, name, this.#config['high-availability.cluster-id'], mode);
      this.#checked.add(check);
    }
    return store;
  }

  async upload(bucket: string, name: string, localPath: string): Promise<void> {
    const os = (await this.bucket(bucket, 'write'))!;
    const stream = Readable.toWeb(createReadStream(localPath)) as unknown as ReadableStream<Uint8Array>;
    await os.put({ name, options: { max_chunk_size: CHUNK_BYTES } }, stream);
  }

  async uploadBytes(bucket: string, name: string, bytes: Uint8Array): Promise<void> {
    const os = (await this.bucket(bucket, 'write'))!;
    await os.putBlob({ name, options: { max_chunk_size: CHUNK_BYTES } }, bytes);
  }

  /** Downloads an object into a file (its digest checked by the client); false when there is none. */
  async download(bucket: string, name: string, localPath: string): Promise<boolean> {
    const os = await this.bucket(bucket, 'read');
    const result = os ? await os.get(name) : null;
    if (!result) return false;
    await mkdir(dirname(localPath), { recursive: true });
    await pipeline(Readable.fromWeb(result.data as unknown as WebReadableStream<Uint8Array>), createWriteStream(localPath));
    const error = await result.error;
    if (error) throw error;
    return true;
  }

  /** Names of the objects below `prefix/` (every object when prefix is ''). */
  async list(bucket: string, prefix: string): Promise<string[]> {
    const os = await this.bucket(bucket, 'read');
    if (!os) return [];
    const below = prefix === '' ? '' : `${prefix}/`;
    return (await os.list()).map((o) => o.name).filter((n) => n !== LAYOUT_OBJECT && n.startsWith(below)).sort();
  }

  async delete(bucket: string, name: string): Promise<void> {
    const os = await this.bucket(bucket, 'read');
    if (os) await deleteObject((await this.#connection()).connection, bucket, os, name);
  }

  async deleteBelow(bucket: string, prefix: string): Promise<void> {
    const names = await this.list(bucket, prefix);
    if (names.length === 0) return;
    const os = (await this.bucket(bucket, 'read'))!;
    const lease = await this.#connection();
    for (const name of names) await deleteObject(lease.connection, bucket, os, name);
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
