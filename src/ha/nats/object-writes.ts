// Writes objects of a JetStream object store in its format (ADR-20: chunks on `$O.<bucket>.C.<nuid>`,
// then the metadata on `$O.<bucket>.M.<name>`) instead of the client's put(). That one purges the
// chunk subject when a put fails midway, and the old object's chunks when a name is written again;
// nats-server 2.9 can replay such a filtered purge as a purge of the whole stream when a clustered
// stream recovers (nats-io/nats-server#4196), which would take every checkpoint in the bucket with
// it. Here a failed write deletes the chunks it published by their sequences, and nothing purges.
import { createHash, randomBytes } from 'node:crypto';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { chunkSubject, metaSubject, paddedBase64Url } from './object-names.ts';
import { deleteMessages } from './object-deletes.ts';

/** The client's default chunk size, for small objects (bundles, layout markers). */
export const DEFAULT_CHUNK_BYTES = 128 * 1024;

export interface WriteObjectOptions {
  /** Bytes per chunk message (at most the server's max_payload); DEFAULT_CHUNK_BYTES when not given. */
  readonly chunkBytes?: number;
  /** Called after each chunk is acknowledged: progress, for a deadline. */
  readonly onChunk?: () => void;
}

/**
 * Publishes the bytes of `source` as an object named `name`, each chunk acknowledged (replicated)
 * before the next, the metadata last: the object exists, whole, once its metadata is acknowledged.
 * A name written again leaves its older chunks unnamed (weir never writes a name twice: checkpoint
 * files are new names, bundles and layout markers are written only when missing).
 */
export async function writeObject(nc: NatsConnection, bucket: string, name: string, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, options: WriteObjectOptions = {}): Promise<void> {
  const js = jetstream(nc);
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  const nuid = randomBytes(16).toString('hex');
  const published: number[] = [];
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of rechunk(source, chunkBytes)) {
      const ack = await js.publish(chunkSubject(bucket, nuid), chunk);
      published.push(ack.seq);
      hash.update(chunk);
      size += chunk.length;
      options.onChunk?.();
    }
    const meta = {
      name,
      options: { max_chunk_size: chunkBytes },
      bucket,
      nuid,
      size,
      chunks: published.length,
      mtime: new Date().toISOString(),
      digest: `SHA-256=${paddedBase64Url(hash.digest())}`,
      deleted: false,
    };
    const h = headers();
    // The newest metadata message of a name is the only one kept (as the client writes it).
    h.set('Nats-Rollup', 'sub');
    await js.publish(metaSubject(bucket, name), JSON.stringify(meta), { headers: h });
  } catch (e) {
    await deletePublished(nc, bucket, published);
    throw e;
  }
}

/** Best effort: chunks no metadata names cost space only, so a failure here does not hide the write's own. */
async function deletePublished(nc: NatsConnection, bucket: string, seqs: readonly number[]): Promise<void> {
  if (seqs.length === 0) return;
  await deleteMessages(await jetstreamManager(nc), bucket, seqs).catch(() => {});
}

async function* rechunk(source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, bytes: number): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let held = 0;
  for await (const piece of source) {
    for (let at = 0; at < piece.length; ) {
      const take = Math.min(bytes - held, piece.length - at);
      pending.push(piece.subarray(at, at + take));
      held += take;
      at += take;
      if (held === bytes) {
        yield Buffer.concat(pending);
        pending = [];
        held = 0;
      }
    }
  }
  if (held > 0) yield Buffer.concat(pending);
}
