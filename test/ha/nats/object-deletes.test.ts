// Object deletes message by message (no filtered purge, which nats-server 2.9 may replay as a purge
// of the whole stream): the object's metadata and every chunk go, no tombstone stays, and the
// other objects of the bucket are untouched.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { deleteObject } from '../../../src/ha/nats/object-deletes.ts';
import { listObjectNames, metaSubject } from '../../../src/ha/nats/object-names.ts';
import { readObject } from '../../../src/ha/nats/object-reads.ts';
import { startNatsCluster, type NatsCluster } from '../../fixtures/nats-cluster.ts';

describe('deleteObject', { timeout: 60_000 }, () => {
  let nats: NatsCluster;
  let nc: NatsConnection;
  let os: ObjectStore;
  before(async () => {
    nats = await startNatsCluster();
    nc = await connect({ servers: nats.servers.split(',') });
    os = await new Objm(nc).create('deletes', { replicas: 3 });
  });
  after(async () => {
    await nc?.close();
    await nats?.stop();
  });

  const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

  test('removes the metadata and every chunk, leaves no tombstone, keeps the other objects', async () => {
    const kept = bytes(300_000, 2);
    await os.putBlob({ name: 'gone', options: { max_chunk_size: 64 * 1024 } }, bytes(300_000, 1));
    await os.putBlob({ name: 'kept', options: { max_chunk_size: 64 * 1024 } }, kept);
    const nuid = (await os.info('gone'))!.nuid;
    await deleteObject(nc, 'deletes', 'gone');

    assert.deepEqual(await listObjectNames(nc, 'deletes'), ['kept']);
    const jsm = await jetstreamManager(nc);
    const subjects = (await jsm.streams.info('OBJ_deletes', { subjects_filter: '>' })).state.subjects ?? {};
    assert.equal(subjects[metaSubject('deletes', 'gone')], undefined, 'no metadata message, not even a "deleted" one');
    assert.equal(subjects[`$O.deletes.C.${nuid}`], undefined, 'no chunk left');
    assert.deepEqual(await readObject(nc, 'deletes', 'gone'), null);
    assert.deepEqual(await readObject(nc, 'deletes', 'kept'), Buffer.from(kept));
  });

  test('deleting what is not there does nothing', async () => {
    await deleteObject(nc, 'deletes', 'never-written');
    await deleteObject(nc, 'deletes', 'gone');
    assert.deepEqual(await listObjectNames(nc, 'deletes'), ['kept']);
  });
});
