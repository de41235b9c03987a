// The lmdb keyed state backend's own promises: a snapshot keeps the state as of its synchronous
// part while the task goes on changing it (entries leaving the cache and coming back included), a
// store closed while a snapshot is written stays readable until the snapshot is released and is
// removed after, keys too long for LMDB are a clear error, and working directories of processes
// that are gone are removed when a TaskManager starts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KeyedStateError, ListStateDescriptor, Types, ValueStateDescriptor } from '../../../src/index.ts';
import { readKeyedStateFile, writeKeyedStateFile } from '../../../src/checkpoint/keyed-state-file.ts';
import { readAllEntries } from '../../../src/checkpoint/keyed-state-file-reader.ts';
import { seededRandom } from '../../../src/coordinator/fault-injector.ts';
import type { Key } from '../../../src/state/key-group.ts';
import { LmdbSnapshotThread } from '../../../src/state/lmdb/lmdb-snapshot-writer.ts';
import { LocalStateStorageError } from '../../../src/state/lmdb/local-state-storage-error.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { lmdbKeyedBackend } from '../../fixtures/state-backends.ts';

const MAX = 128;
let dir: string;
before(() => {
  dir = makeTempDir('lmdb-backend');
});
after(() => removeDir(dir));

function backend(localDir: string, cacheEntries = 16, snapshotThread = false) {
  return lmdbKeyedBackend(localDir, { cacheEntries, snapshotThread, maxParallelism: MAX });
}

/** Every entry of a state file, by state name and key. */
function contents(path: string, handle: Awaited<ReturnType<typeof writeKeyedStateFile>>): Map<string, Map<Key, unknown>> {
  const out = new Map<string, Map<Key, unknown>>();
  for (const [name, groups] of readAllEntries(readKeyedStateFile({ ...handle, file: path }, (f) => f, { start: 0, end: MAX - 1 }))) {
    out.set(name, new Map([...groups.values()].flat()));
  }
  return out;
}

describe('lmdb keyed state backend', () => {
  test('a snapshot holds the state as of its synchronous part while the task changes, removes and adds entries', async () => {
    const b = backend(join(dir, 'isolation'));
    const count = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    const seen = b.getListState(new ListStateDescriptor<string>('seen'));
    const counts = new Map<Key, number>();
    const lists = new Map<Key, string[]>();
    const rnd = seededRandom(7);
    const step = (i: number) => {
      const key = `k${Math.floor(rnd() * 3000)}`;
      b.setCurrentKey(key);
      if (rnd() < 0.1) {
        count.clear();
        seen.clear();
        counts.delete(key);
        lists.delete(key);
        return;
      }
      const n = (count.value() ?? 0) + 1;
      count.update(n);
      counts.set(key, n);
      seen.add(`r${i}`);
      lists.set(key, [...(lists.get(key) ?? []), `r${i}`]);
    };
    for (let i = 0; i < 20_000; i++) step(i);
    const expected = new Map<string, Map<Key, unknown>>([['count', new Map(counts)], ['seen', new Map([...lists].map(([k, v]) => [k, [...v]]))]]);
    const captured = b.snapshot();
    const path = join(dir, 'isolation.ksf');
    // The task goes on while the file is written: every step of the writer lets some records in.
    let i = 20_000;
    const busy = setInterval(() => {
      for (let j = 0; j < 500; j++) step(i++);
    }, 0);
    try {
      const handle = await writeKeyedStateFile(path, captured);
      assert.deepStrictEqual(contents(path, handle), expected);
    } finally {
      clearInterval(busy);
      for (const t of captured.tables) t.snapshot.release();
    }
    assert.ok(i > 20_000, 'no record was processed while the snapshot was written');
    // And the live state is what the steps since made of it.
    const later = b.snapshot();
    const again = await writeKeyedStateFile(join(dir, 'later.ksf'), later);
    for (const t of later.tables) t.snapshot.release();
    assert.deepStrictEqual(contents(join(dir, 'later.ksf'), again).get('count'), counts);
    b.close();
  });

  for (const thread of [false, true]) test(`closed while a snapshot is written${thread ? ' by the snapshot thread' : ''}, the store stays readable until the snapshot is released, and is removed then`, async () => {
    if (thread) assert.equal(await LmdbSnapshotThread.shared()!.ready, true, 'the snapshot thread starts');
    const root = join(dir, `closing-${thread}`);
    const b = backend(root, 16, thread);
    const count = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    for (let i = 0; i < 5000; i++) {
      b.setCurrentKey(i);
      count.update(i);
    }
    const captured = b.snapshot();
    assert.equal(captured.writeFile !== undefined, thread);
    b.close();
    const handle = await writeKeyedStateFile(join(dir, `closing-${thread}.ksf`), captured);
    assert.equal(handle.entries, 5000);
    const [processDir] = readdirSync(root);
    assert.equal(readdirSync(join(root, processDir!)).length, 1, 'the store is still there while its snapshot is held');
    for (const t of captured.tables) t.snapshot.release();
    for (let n = 0; n < 200 && readdirSync(join(root, processDir!)).length > 0; n++) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(readdirSync(join(root, processDir!)), []);
  });

  test('undeclared values come back from the store as they went in: Map, Set, Date, bigint, nested, undefined fields', () => {
    const b = backend(join(dir, 'values'));
    const state = b.getValueState(new ValueStateDescriptor<unknown>('v'));
    const valueOf = (k: number) => ({
      n: k,
      big: BigInt(k) * 10n ** 20n,
      at: new Date(1_700_000_000_000 + k),
      tags: new Set([`t${k}`, 'all']),
      counts: new Map<unknown, unknown>([['a', k], [k, { deep: [k, null, 'x'] }]]),
      missing: undefined,
      bytes: new Uint8Array([k & 0xff, 1, 2]),
    });
    // Many more keys than the 16 cached entries: most values are read back from the store.
    for (let k = 0; k < 200; k++) {
      b.setCurrentKey(k);
      state.update(valueOf(k));
    }
    for (let k = 0; k < 200; k++) {
      b.setCurrentKey(k);
      assert.deepEqual(state.value(), valueOf(k), `key ${k}`);
    }
    b.close();
  });

  test('a key longer than LMDB keeps is a KeyedStateError naming the state and the limit', () => {
    const b = backend(join(dir, 'long-key'));
    const count = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    b.setCurrentKey('x'.repeat(600));
    assert.throws(
      () => count.update(1),
      (e: unknown) => e instanceof KeyedStateError && e.stateName === 'count' && /takes 600 bytes/.test(e.message) && /at most 506 bytes/.test(e.message) && /state\.backend\.type: heap/.test(e.message),
    );
    b.close();
  });

  test('working directories of ended processes are removed when a TaskManager starts; those of live ones stay', () => {
    const root = join(dir, 'stale');
    // A pid far above any this machine hands out, and this process's parent (alive).
    const gone = join(root, 'weir-tm-999999999');
    const alive = join(root, `weir-tm-${process.ppid}`);
    for (const d of [gone, alive]) {
      mkdirSync(join(d, 'job-op-0-0-abcd'), { recursive: true });
      writeFileSync(join(d, 'job-op-0-0-abcd', 'data.mdb'), 'left by a killed TaskManager');
    }
    const b = backend(root);
    b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    assert.equal(existsSync(gone), false);
    assert.equal(existsSync(alive), true);
    assert.equal(existsSync(join(root, `weir-tm-${process.pid}`)), true);
    b.close();
  });
});

describe('lmdb keyed state backend after close', () => {
  test('state read after close fails at once, saying the backend was closed rather than blaming the disk', () => {
    const b = backend(join(dir, 'after-close'), 4);
    const count = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    for (let i = 0; i < 50; i++) {
      b.setCurrentKey(`k${i}`);
      count.update(i);
    }
    b.close();
    // The cache was cleared: the key is read from the store, which close() has closed.
    b.setCurrentKey('k3');
    assert.throws(
      () => count.value(),
      (e: unknown) => e instanceof LocalStateStorageError && e.afterClose && e.operation === 'read' && /the state backend had been closed \(its task was ending\)/.test(e.message) && !/writable local disk|bytes are free/.test(e.message),
    );
  });
});
