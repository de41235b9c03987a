import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

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
