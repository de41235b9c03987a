import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { ObjectStore } from '@nats-io/obj';

/**
 * Deletes an object and then its metadata's tombstone. The client's delete leaves a "deleted"
 * metadata message per name for ever, and every listing reads them all: a job that checkpoints
 * every second would make listings of its bucket slower by the day. The subject is the object
 * store's (ADR-20): `$O.<bucket>.M.<name in padded base64url>`.
 */
export async function deleteObject(nc: NatsConnection, bucket: string, os: ObjectStore, name: string): Promise<void> {
  const result = await os.delete(name);
  if (!result.success && (await os.info(name)) === null) return;
  await (await jetstreamManager(nc)).streams.purge(`OBJ_${bucket}`, { filter: metaSubject(bucket, name) });
}

/** The names of the objects in a bucket whose meta subjects are left, as the stream's leader knows them (paged by the client). */
export async function listObjectNames(nc: NatsConnection, bucket: string): Promise<string[]> {
  const prefix = `$O.${bucket}.M.`;
  const info = await (await jetstreamManager(nc)).streams.info(`OBJ_${bucket}`, { subjects_filter: `${prefix}>` });
  return Object.keys(info.state.subjects ?? {}).map((subject) => Buffer.from(subject.slice(prefix.length), 'base64url').toString('utf8'));
}

/** The subject of an object's metadata messages (ADR-20: the name in padded base64url). */
export function metaSubject(bucket: string, name: string): string {
  const b = Buffer.from(name, 'utf8').toString('base64url');
  return `$O.${bucket}.M.${b + '='.repeat((4 - (b.length % 4)) % 4)}`;
}
