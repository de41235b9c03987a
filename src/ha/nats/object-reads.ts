// Reads objects of a JetStream object store by requests to the stream, chunk by chunk, instead of
// the client's get(). That one reads through a push consumer with flow control and a 30 s idle
// heartbeat: made while a stream's replicas are catching up after a restart (seen after two of
// three servers came back), it can deliver nothing and never say so, and a restore or a bucket's
// layout check hangs. A STREAM.MSG.GET request is answered by the stream's leader or fails in the
// request timeout, so every step either progresses or errs.
import { createHash } from 'node:crypto';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { chunkSubject, metaSubject } from './object-names.ts';

/** An object's metadata message as the object store writes it (ADR-20). */
export interface ObjectMeta {
  readonly name: string;
  readonly nuid: string;
  readonly size: number;
  readonly chunks: number;
  readonly digest: string;
  readonly deleted?: boolean;
  readonly options?: { readonly link?: unknown };
}

/** The object's bytes are not what its metadata says (size or SHA-256 digest). */
export class ObjectDigestError extends Error {
  readonly bucket: string;
  readonly object: string;
  constructor(bucket: string, object: string, problem: string) {
    super(`object '${object}' in NATS object store '${bucket}': ${problem}`);
    this.name = 'ObjectDigestError';
    this.bucket = bucket;
    this.object = object;
  }
}

/**
 * Streams an object's chunks to `onChunk` in order (each one a request answered by the stream's
 * leader), checking its size and digest at the end; false when there is no such object.
 */
export async function readObjectChunks(nc: NatsConnection, bucket: string, name: string, onChunk: (chunk: Uint8Array) => void | Promise<void>, timeoutMs?: number): Promise<boolean> {
  const jsm = await jetstreamManager(nc, timeoutMs === undefined ? {} : { timeout: timeoutMs });
  const meta = (await metaMessage(jsm, bucket, name))?.meta;
  if (!meta || meta.deleted) return false;
  if (meta.options?.link) throw new ObjectDigestError(bucket, name, 'is a link; weir does not write links');
  const hash = createHash('sha256');
  let size = 0;
  let read = 0;
  for await (const chunk of chunkMessages(jsm, bucket, meta)) {
    hash.update(chunk.data);
    size += chunk.data.length;
    read++;
    await onChunk(chunk.data);
  }
  if (read < meta.chunks) throw new ObjectDigestError(bucket, name, `${meta.chunks - read} of its ${meta.chunks} chunks are missing`);
  if (size !== meta.size) throw new ObjectDigestError(bucket, name, `read ${size} bytes, its metadata says ${meta.size}`);
  const expected = meta.digest.replace(/^SHA-256=/i, '');
  const actual = hash.digest();
  if (!equalDigest(expected, actual)) throw new ObjectDigestError(bucket, name, `its SHA-256 digest does not match (expected ${expected})`);
  return true;
}

/** An object's metadata as the stream's leader has it; null when there is no such object. */
export async function readObjectMeta(nc: NatsConnection, bucket: string, name: string): Promise<ObjectMeta | null> {
  const meta = (await metaMessage(await jetstreamManager(nc), bucket, name))?.meta;
  return meta && !meta.deleted ? meta : null;
}

/** The newest metadata message of a name, a "deleted" one included, with its stream sequence. */
export async function metaMessage(jsm: JetStreamManager, bucket: string, name: string): Promise<{ seq: number; meta: ObjectMeta } | null> {
  const m = await jsm.streams.getMessage(`OBJ_${bucket}`, { last_by_subj: metaSubject(bucket, name) });
  return m === null ? null : { seq: m.seq, meta: m.json<ObjectMeta>() };
}

/** The whole object, or null when there is none. */
export async function readObject(nc: NatsConnection, bucket: string, name: string, timeoutMs?: number): Promise<Uint8Array | null> {
  const parts: Uint8Array[] = [];
  const found = await readObjectChunks(nc, bucket, name, (c) => void parts.push(c), timeoutMs);
  return found ? Buffer.concat(parts) : null;
}

/** An object's chunk messages in order, one request each; fewer than `meta.chunks` when some are gone. */
export async function* chunkMessages(jsm: JetStreamManager, bucket: string, meta: ObjectMeta): AsyncGenerator<{ seq: number; data: Uint8Array }> {
  const subject = chunkSubject(bucket, meta.nuid);
  for (let seq = 0, i = 0; i < meta.chunks; i++) {
    // next_by_subj is the server's (2.9+) "first message of this subject at or after seq"; the client's type only lists it for direct gets.
    const m = await jsm.streams.getMessage(`OBJ_${bucket}`, { next_by_subj: subject, seq } as unknown as { seq: number });
    if (m === null) return;
    yield { seq: m.seq, data: m.data };
    seq = m.seq + 1;
  }
}

function equalDigest(expected: string, actual: Buffer): boolean {
  // Written as base64url by current clients, as standard base64 by older ones; hex is accepted too.
  for (const encoding of ['base64url', 'base64', 'hex'] as const) {
    const b = Buffer.from(expected, encoding);
    if (b.length === actual.length && b.equals(actual)) return true;
  }
  return false;
}
