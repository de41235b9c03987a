// Deletes objects of a JetStream object store message by message instead of the client's delete().
// That one purges the object's chunk subject with a filtered purge, and nats-server 2.9 can replay
// a filtered purge as a purge of the whole stream when a clustered stream recovers
// (nats-io/nats-server#4196, reported on 2.9.17; this machine has 2.9.10): seen here as a bucket
// holding nothing but its layout marker after two of three servers were killed and came back, so
// a job's latest retained checkpoint was gone.
// Deleting each message by sequence is one replicated delete per message, replayed as such.
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { metaSubject } from './object-names.ts';
import { nextChunk, type ObjectMeta } from './object-reads.ts';

/**
 * Deletes an object: its metadata message first, so it leaves every listing and read at once,
 * then its chunks. No "deleted" metadata message stays behind (listings stay as short as the
 * live objects); an interrupted delete leaves chunks no metadata names, which cost space only.
 */
export async function deleteObject(nc: NatsConnection, bucket: string, name: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const stream = `OBJ_${bucket}`;
  const m = await jsm.streams.getMessage(stream, { last_by_subj: metaSubject(bucket, name) });
  if (m === null) return;
  const meta = m.json<ObjectMeta>();
  await deleteMessage(jsm, stream, m.seq);
  if (meta.deleted || !meta.nuid) return;
  const subject = `$O.${bucket}.C.${meta.nuid}`;
  for (let seq = 0, i = 0; i < meta.chunks; i++) {
    const chunk = await nextChunk(jsm, stream, subject, seq);
    if (chunk === null) return;
    await deleteMessage(jsm, stream, chunk.seq);
    seq = chunk.seq + 1;
  }
}

async function deleteMessage(jsm: JetStreamManager, stream: string, seq: number): Promise<void> {
  try {
    // Not erased (overwritten): the bytes go when their block is compacted, and the delete stays one small write.
    await jsm.streams.deleteMessage(stream, seq, false);
  } catch (e) {
    // Gone already (another delete of the same object got there first).
    if ((e as { api_error?: { err_code?: number } }).api_error?.err_code === 10057 || /no message found/i.test((e as Error).message)) return;
    throw e;
  }
}
