// Object deletes message by message (no filtered purge, which nats-server 2.9 may replay as a purge
// of the whole stream): the object's metadata and every chunk go, no tombstone stays, and the
// other objects of the bucket are untouched.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import { deleteMessages, deleteObject } from '../../../src/ha/nats/object-deletes.ts';
import { listObjectNames, metaSubject } from '../../../src/ha/nats/object-names.ts';
import { readObject } from '../../../src/ha/nats/object-reads.ts';
import { natsObjectBucket } from '../../fixtures/nats-object-bucket.ts';

describe('deleteObject', { timeout: 60_000 }, () => {
  const b = natsObjectBucket('deletes');

  const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

  test('removes the metadata and every chunk, leaves no tombstone, keeps the other objects', async () => {
    const kept = bytes(300_000, 2);
    await b.os.putBlob({ name: 'gone', options: { max_chunk_size: 64 * 1024 } }, bytes(300_000, 1));
    await b.os.putBlob({ name: 'kept', options: { max_chunk_size: 64 * 1024 } }, kept);
    const nuid = (await b.os.info('gone'))!.nuid;
    await deleteObject(b.nc, 'deletes', 'gone');

    assert.deepEqual(await listObjectNames(b.nc, 'deletes'), ['kept']);
    const jsm = await jetstreamManager(b.nc);
    const subjects = (await jsm.streams.info('OBJ_deletes', { subjects_filter: '>' })).state.subjects ?? {};
    assert.equal(subjects[metaSubject('deletes', 'gone')], undefined, 'no metadata message, not even a "deleted" one');
    assert.equal(subjects[`$O.deletes.C.${nuid}`], undefined, 'no chunk left');
    assert.deepEqual(await readObject(b.nc, 'deletes', 'gone'), null);
    assert.deepEqual(await readObject(b.nc, 'deletes', 'kept'), Buffer.from(kept));
  });

  test('deleting what is not there does nothing: no object, or a message another delete took first', async () => {
    await deleteObject(b.nc, 'deletes', 'never-written');
    await deleteObject(b.nc, 'deletes', 'gone');
    const jsm = await jetstreamManager(b.nc);
    await b.os.putBlob({ name: 'twice' }, bytes(10, 3));
    const twice = (await jsm.streams.getMessage('OBJ_deletes', { last_by_subj: metaSubject('deletes', 'twice') }))!.seq;
    await deleteMessages(jsm, 'deletes', [twice]);
    await deleteMessages(jsm, 'deletes', [twice]); // already gone: no error
    assert.deepEqual(await listObjectNames(b.nc, 'deletes'), ['kept']);
  });
});
