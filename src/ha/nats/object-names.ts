import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

/**
 * A stream's info came from a member that knows no leader: a server that has just restarted
 * answers so from its own state, which lacks what was written while it was down.
 */
export class StreamLeaderUnknownError extends Error {
  readonly stream: string;
  constructor(stream: string) {
    super(`stream '${stream}' has no leader yet (its servers are electing one or catching up): listing it now could miss objects`);
    this.name = 'StreamLeaderUnknownError';
    this.stream = stream;
  }
}

/** The names of the objects in a bucket whose meta subjects are left, as the stream's leader knows them (paged by the client). */
export async function listObjectNames(nc: NatsConnection, bucket: string): Promise<string[]> {
  const prefix = `$O.${bucket}.M.`;
  const stream = `OBJ_${bucket}`;
  const info = await (await jetstreamManager(nc)).streams.info(stream, { subjects_filter: `${prefix}>` });
  if (info.cluster && !info.cluster.leader) throw new StreamLeaderUnknownError(stream);
  return Object.keys(info.state.subjects ?? {}).map((subject) => Buffer.from(subject.slice(prefix.length), 'base64url').toString('utf8'));
}

/** The subject of an object's metadata messages (ADR-20: the name in padded base64url). */
export function metaSubject(bucket: string, name: string): string {
  return `$O.${bucket}.M.${paddedBase64Url(Buffer.from(name, 'utf8'))}`;
}

/** The subject of an object's chunks (ADR-20). */
export function chunkSubject(bucket: string, nuid: string): string {
  return `$O.${bucket}.C.${nuid}`;
}

/** base64url with its padding, as the object store writes names and digests. */
export function paddedBase64Url(bytes: Uint8Array): string {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
  return b + '='.repeat((4 - (b.length % 4)) % 4);
}
