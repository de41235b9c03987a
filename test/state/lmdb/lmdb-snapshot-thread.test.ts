// The lmdb snapshot thread: a full snapshot it writes from its own read transaction is the file
// the task thread writes, byte for byte, for every kind of serializer and for restored states no
// operator has claimed, and holds the state as of the snapshot's synchronous part while the task
// goes on writing (entries leaving the cache for the store included); TTL states are written by
// the task thread. (A store closed while the thread writes: lmdb-keyed-state-backend.test.ts.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ListStateDescriptor, MapStateDescriptor, StateTtlConfig, Types, ValueStateDescriptor } from '../../../src/index.ts';
import type { TypeSerializer } from '../../../src/api/serializer.ts';
import { readKeyedStateFile, writeKeyedStateFile } from '../../../src/checkpoint/keyed-state-file.ts';
import { readAllEntries } from '../../../src/checkpoint/keyed-state-file-reader.ts';
import type { KeyedStateBackend } from '../../../src/state/keyed-state-backend.ts';
import type { Key } from '../../../src/state/key-group.ts';
import { LmdbSnapshotThread } from '../../../src/state/lmdb/lmdb-snapshot-writer.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { lmdbKeyedBackend } from '../../fixtures/state-backends.ts';

const MAX = 128;
let dir: string;
before(async () => {
  dir = makeTempDir('lmdb-snapshot-thread');
  assert.equal(await LmdbSnapshotThread.shared()!.ready, true, 'the snapshot thread starts');
});
after(() => removeDir(dir));

function backend(localDir: string, snapshotThread: boolean): KeyedStateBackend {
  return lmdbKeyedBackend(localDir, { cacheEntries: 64, snapshotThread, maxParallelism: MAX });
}

/** A serializer of the job's own: a string as its UTF-8 bytes reversed. */
const reversed: TypeSerializer<string> = {
  id: 'test.reversed',
  version: 1,
  serialize: (v) => Buffer.from(v, 'utf8').reverse(),
  deserialize: (b) => Buffer.from(b).reverse().toString('utf8'),
  copy: (v) => v,
};

/** Declared, undeclared (msgpack), custom-serialized and map state, changed the same way on every backend given. */
function workload(backends: readonly KeyedStateBackend[]) {
  const handles = backends.map((b) => ({
    b,
    count: b.getValueState(new ValueStateDescriptor('count', { type: Types.int })),
    seen: b.getListState(new ListStateDescriptor<unknown>('seen')),
    label: b.getValueState(new ValueStateDescriptor<string>('label', { serializer: reversed })),
    attrs: b.getMapState(new MapStateDescriptor<string, number>('attrs', { keyType: Types.string, valueType: Types.double })),
  }));
  return (i: number) => {
    const key = i % 3 === 0 ? `k${i % 2000}` : i % 2000;
    for (const h of handles) {
      h.b.setCurrentKey(key);
      h.count.update((h.count.value() ?? 0) + 1);
      if (i % 5 === 0) h.seen.add({ i, at: new Date(1_700_000_000_000 + i), tags: new Set([i % 7]) });
      if (i % 4 === 0) h.label.update(`label ✓ ${i}`);
      if (i % 6 === 0) h.attrs.put(`a${i % 9}`, i / 3);
      if (i % 97 === 0) h.count.clear();
    }
  };
}

/** Writes a snapshot to `name` in the test's directory, then lets it go, as a checkpoint's asynchronous part does. */
async function written(captured: ReturnType<KeyedStateBackend['snapshot']>, name: string): Promise<Awaited<ReturnType<typeof writeKeyedStateFile>>> {
  try {
    return await writeKeyedStateFile(join(dir, name), captured);
  } finally {
    for (const t of captured.tables) t.snapshot.release();
  }
}

function contents(path: string, handle: Awaited<ReturnType<typeof writeKeyedStateFile>>): Map<string, Map<Key, unknown>> {
  const out = new Map<string, Map<Key, unknown>>();
  for (const [name, groups] of readAllEntries(readKeyedStateFile({ ...handle, file: path }, (f) => f, { start: 0, end: MAX - 1 }))) out.set(name, new Map([...groups.values()].flat()));
  return out;
}

describe('lmdb snapshot thread', () => {
  test('its full snapshot is the task thread\'s file byte for byte, as of the synchronous part, while the task goes on writing', async () => {
    const threaded = backend(join(dir, 'threaded'), true);
    const inThread = backend(join(dir, 'in-thread'), false);
    const step = workload([threaded, inThread]);
    for (let i = 0; i < 20_000; i++) step(i);
    const a = threaded.snapshot();
    const b = inThread.snapshot();
    assert.ok(a.writeFile, 'the snapshot thread writes the snapshot');
    assert.equal(b.writeFile, undefined);
    // Every key changes after the synchronous part, most of them leaving the 64-entry cache for the store.
    for (let i = 20_000; i < 40_000; i++) step(i);
    const ha = await written(a, 'threaded.ksf');
    const hb = await written(b, 'in-thread.ksf');
    assert.ok(ha.entries > 6000, `${ha.entries} entries`);
    assert.deepEqual({ ...ha, file: '' }, { ...hb, file: '' });
    assert.ok(readFileSync(join(dir, 'threaded.ksf')).equals(readFileSync(join(dir, 'in-thread.ksf'))), 'the two files differ');

    // And the file holds the state after step 19,999: the same workload replayed on a fresh backend to there.
    const reference = backend(join(dir, 'reference'), false);
    const replay = workload([reference]);
    for (let i = 0; i < 20_000; i++) replay(i);
    const hr = await written(reference.snapshot(), 'reference.ksf');
    assert.deepEqual(contents(join(dir, 'threaded.ksf'), ha), contents(join(dir, 'reference.ksf'), hr));
    for (const x of [threaded, inThread, reference]) x.close();
  });

  test('snapshots taken back to back each hold their own state: the first sees none of the second\'s flush, the second none of the first\'s transaction', async () => {
    const b = backend(join(dir, 'back-to-back'), true);
    const count = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    const put = (round: number) => {
      for (let k = 0; k < 10; k++) {
        b.setCurrentKey(k);
        count.update(round * 100 + k);
      }
    };
    put(1);
    const first = b.snapshot();
    // Within microseconds: the second snapshot commits these changes to the store (its flush)
    // while the first still holds its read transaction.
    put(2);
    const second = b.snapshot();
    put(3);
    const third = b.snapshot();
    for (const c of [first, second, third]) assert.ok(c.writeFile);
    const files = await Promise.all([first, second, third].map((c, i) => written(c, `back-to-back-${i}.ksf`)));
    files.forEach((h, i) => {
      const values = contents(join(dir, `back-to-back-${i}.ksf`), h).get('count')!;
      assert.deepEqual([...values].sort(([x], [y]) => Number(x) - Number(y)), Array.from({ length: 10 }, (_, k) => [k, (i + 1) * 100 + k]), `snapshot ${i + 1}`);
    });
    b.close();
  });

  test('restored states that no operator claimed are written as they were restored', async () => {
    const source = backend(join(dir, 'source'), false);
    const step = workload([source]);
    for (let i = 0; i < 5000; i++) step(i);
    const hs = await written(source.snapshot(), 'source.ksf');
    source.close();
    const restored = backend(join(dir, 'restored'), true);
    for (const [name, groups] of readAllEntries(readKeyedStateFile({ ...hs, file: join(dir, 'source.ksf') }, (f) => f, { start: 0, end: MAX - 1 }))) {
      const info = hs.states.find((x) => x.name === name)!;
      for (const [keyGroup, entries] of groups) {
        const sink = restored.restoreTarget({ ...info, snapshot: info.snapshot! }, keyGroup);
        for (const [key, value] of entries) sink(key, value);
      }
    }
    const c = restored.snapshot();
    assert.ok(c.writeFile);
    const hc = await written(c, 'restored.ksf');
    assert.ok(readFileSync(join(dir, 'restored.ksf')).equals(readFileSync(join(dir, 'source.ksf'))), 'the restored state is written as it was read');
    assert.equal(hc.entries, hs.entries);
    restored.close();
  });

  test('a checkpoint aborted before its write: the write fails at once, with the abort\'s reason or because the snapshot was let go', async () => {
    const b = backend(join(dir, 'aborted'), true);
    const count = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    b.setCurrentKey('a');
    count.update(1);
    const aborted = b.snapshot();
    const controller = new AbortController();
    controller.abort(new Error('checkpoint 7 expired'));
    for (const t of aborted.tables) t.snapshot.release();
    await assert.rejects(writeKeyedStateFile(join(dir, 'aborted-1.ksf'), aborted, controller.signal), /checkpoint 7 expired/);
    const released = b.snapshot();
    for (const t of released.tables) t.snapshot.release();
    await assert.rejects(writeKeyedStateFile(join(dir, 'aborted-2.ksf'), released), (e: Error) => e.name === 'SnapshotThreadWriteError' && /already released/.test(e.message));
    b.close();
  });

  test('a snapshot with a TTL state is written by the task thread (its cleanup needs the job\'s descriptor)', () => {
    const b = backend(join(dir, 'ttl'), true);
    const ttl = StateTtlConfig.newBuilder(60_000).cleanupFullSnapshot().build();
    const v = b.getValueState(new ValueStateDescriptor('v', { type: Types.int }).enableTimeToLive(ttl));
    b.setCurrentKey('a');
    v.update(1);
    const c = b.snapshot();
    assert.equal(c.writeFile, undefined);
    for (const t of c.tables) t.snapshot.release();
    b.close();
  });
});
