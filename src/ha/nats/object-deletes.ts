// Deletes objects of a JetStream object store message by message instead of the client's delete().
// That one purges the object's chunk subject with a filtered purge, and nats-server 2.9 can replay
// a filtered purge as a purge of the whole stream when a clustered stream recovers
// (nats-io/nats-server#4196, reported on 2.9.17; this machine has 2.9.10): seen here as a bucket
// holding nothing but its layout marker after two of three servers were killed and came back, so
// a job's latest retained checkpoint was gone.
// Deleting each message by sequence is one replicated delete per message, replayed as such.
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { chunkMessages, metaMessage } from './object-reads.ts';

/**
 * Deletes an object: its metadata message first, so it leaves every listing and read at once,
 * then its chunks. No "deleted" metadata message stays behind (listings stay as short as the
 * live objects); an interrupted delete leaves chunks no metadata names, which cost space only.
 */
export async function deleteObject(nc: NatsConnection, bucket: string, name: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const found = await metaMessage(jsm, bucket, name);
  if (found === null) return;
  await deleteMessages(jsm, bucket, [found.seq]);
  // A "deleted" marker (the client's delete, or an older weir's) names no chunks.
  if (found.meta.deleted || !found.meta.nuid) return;
  for await (const chunk of chunkMessages(jsm, bucket, found.meta)) await deleteMessages(jsm, bucket, [chunk.seq]);
}

/** Deletes messages by stream sequence; one already gone (another delete got there first) is no error. */
export async function deleteMessages(jsm: JetStreamManager, bucket: string, seqs: readonly number[]): Promise<void> {
  for (const seq of seqs) {
    try {
      // Not erased (overwritten): the bytes go when their block is compacted, and the delete stays one small write.
      await jsm.streams.deleteMessage(`OBJ_${bucket}`, seq, false);
    } catch (e) {
      if (!/not found|no message found/i.test((e as Error).message)) throw e;
    }
  }
}
