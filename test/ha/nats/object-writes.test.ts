// Objects written message by message in the object store's own format: the official client reads
// them back (its get() and its digest check), a failed write leaves no chunk behind, and a name
// written again keeps only its newest metadata.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { jetstreamManager } from '@nats-io/jetstream';
import { writeObject } from '../../../src/ha/nats/object-writes.ts';
import { readObject } from '../../../src/ha/nats/object-reads.ts';
import { natsObjectBucket } from '../../fixtures/nats-object-bucket.ts';

describe('writeObject', { timeout: 60_000 }, () => {
  const b = natsObjectBucket('writes');

  const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 131 + seed) & 0xff);
  const subjects = async () => (await (await jetstreamManager(b.nc)).streams.info('OBJ_writes', { subjects_filter: '>' })).state.subjects ?? {};

  test('pieces of any size become chunks of the given size; the client reads the object and checks its digest', async () => {
    const data = bytes(250_000, 1);
    const pieces = [data.subarray(0, 7), data.subarray(7, 100_003), data.subarray(100_003)];
    await writeObject(b.nc, 'writes', 'a/b', pieces, { chunkBytes: 64 * 1024 });
    const info = await b.os.info('a/b');
    assert.equal(info?.size, data.length);
    assert.equal(info?.chunks, Math.ceil(data.length / (64 * 1024)));
    const viaClient = new Uint8Array(await new Response((await b.os.get('a/b'))!.data).arrayBuffer());
    assert.deepEqual(Buffer.from(viaClient), Buffer.from(data));
    assert.deepEqual(await readObject(b.nc, 'writes', 'a/b'), Buffer.from(data));
  });

  test('a write that fails midway deletes the chunks it published and makes no object', async () => {
    const before = Object.keys(await subjects()).length;
    async function* failing() {
      yield bytes(70_000, 2);
      yield bytes(70_000, 3);
      throw new Error('the file could not be read');
    }
    await assert.rejects(writeObject(b.nc, 'writes', 'broken', failing(), { chunkBytes: 64 * 1024 }), /could not be read/);
    assert.equal(await b.os.info('broken'), null);
    assert.equal(Object.keys(await subjects()).length, before, 'no chunk subject left');
  });

  test('a name written again keeps only the newest metadata', async () => {
    await writeObject(b.nc, 'writes', 'again', [bytes(10, 4)], { chunkBytes: 1024 });
    await writeObject(b.nc, 'writes', 'again', [bytes(20, 5)], { chunkBytes: 1024 });
    const meta = Object.entries(await subjects()).filter(([s]) => s.startsWith('$O.writes.M.'));
    assert.equal(meta.length, 2, 'a/b and again');
    assert.ok(meta.every(([, n]) => n === 1));
    assert.deepEqual(await readObject(b.nc, 'writes', 'again'), Buffer.from(bytes(20, 5)));
  });
});
