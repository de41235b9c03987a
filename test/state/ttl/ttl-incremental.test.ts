// State TTL with incremental checkpoints, on the heap and the lmdb backend (manual clock): a key
// changed since the chain's base whose new value has expired by the checkpoint is written in the
// delta as removed, so neither its expired value nor the older one the base holds comes back in
// a restore from the chain (visible with ReturnExpiredIfNotCleanedUp, which returns whatever a
// restore put back); live values come back exactly; and the first full snapshot after that
// restore holds what a full snapshot of the original backend at the same time holds. A key left
// untouched since the base (not cleaned up) stays in the base file until the chain is
// materialized, as in Flink's incremental RocksDB checkpoints, carrying its timestamp.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { StateTtlConfig, ValueStateDescriptor, Types } from '../../../src/index.ts';
import { fileCheckpointStorageWorkerView } from '../../../src/checkpoint/file-checkpoint-storage-worker-view.ts';
import { readKeyedState } from '../../../src/checkpoint/incremental/incremental-keyed-state-reader.ts';
import { readAllEntries } from '../../../src/checkpoint/keyed-state-file-reader.ts';
import type { KeyedStateHandle } from '../../../src/checkpoint/state-handles.ts';
import type { Key } from '../../../src/state/key-group.ts';
import type { KeyedStateBackend } from '../../../src/state/keyed-state-backend.ts';
import { createHeapStateBackend } from '../../../src/state/heap-state-backend.ts';
import { LmdbStateBackend } from '../../../src/state/lmdb/lmdb-state-backend.ts';
import type { StateBackendType } from '../../../src/state/state-backend.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';

const MAX = 128;
const RANGE = { start: 0, end: MAX - 1 };
const TTL = 1_000;
let dir: string;
before(() => {
  dir = makeTempDir('ttl-incremental');
});
after(() => removeDir(dir));

class Clock {
  t = 0;
  readonly now = (): number => this.t;
}

let made = 0;
function backend(type: StateBackendType, clock: Clock): KeyedStateBackend {
  const factory = type === 'heap' ? createHeapStateBackend({ maxDeltas: 100 }) : new LmdbStateBackend({ localDir: join(dir, `local-${++made}`), cacheEntries: 16, incremental: { maxDeltas: 100 }, snapshotThread: true });
  return factory.createKeyedStateBackend({ jobId: 'job', uid: 'ttl', subtask: 0, attempt: 0, keyGroupRange: RANGE, maxParallelism: MAX, describe: () => 'the test backend', now: clock.now });
}

const config = StateTtlConfig.newBuilder(TTL).cleanupFullSnapshot().disableCleanupInBackground().returnExpiredIfNotCleanedUp().build();
const descriptor = () => new ValueStateDescriptor<number>('v', { type: Types.int }).enableTimeToLive(config);
const keys = (prefix: string, n = 50) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
/** Untouched after the base: many, so the keys changed stay a small share (a heap checkpoint with more than a fifth changed is full). */
const untouched = () => keys('u', 1_000);

function write(b: KeyedStateBackend, ks: string[], value: number): void {
  const s = b.getValueState(descriptor());
  for (const k of ks) {
    b.setCurrentKey(k);
    s.update(value);
  }
}

function read(b: KeyedStateBackend, ks: string[]): Map<string, number | undefined> {
  const s = b.getValueState(descriptor());
  return new Map(ks.map((k) => (b.setCurrentKey(k), [k, s.value()])));
}

async function snapshot(b: KeyedStateBackend, id: number, location: string, base: number | null | undefined, type: 'checkpoint' | 'savepoint' = 'checkpoint'): Promise<KeyedStateHandle> {
  const keyed = b.snapshot({ checkpointId: id, type, ...(base !== undefined ? { incrementalBase: base } : {}) });
  try {
    const s = await fileCheckpointStorageWorkerView.writeSnapshot({ checkpointId: id, location }, [{ uid: 'ttl', operatorId: 'op', keyed, operator: new Map() }], { vertexId: 'v', subtask: 0, headUid: 'ttl' }, new AbortController().signal);
    return s.operators[0]!.keyed!;
  } finally {
    for (const t of [...keyed.tables, ...(keyed.incremental?.tables ?? [])]) t.snapshot.release();
  }
}

/** What the files of a handle hold: key -> the stored {v, t}. */
function held(handle: KeyedStateHandle, location: string): Map<Key, { v: number; t: number }> {
  const entries = readAllEntries(readKeyedState(handle, (f) => join(location, f), RANGE)).get('v');
  return new Map([...(entries?.values() ?? [])].flat() as Array<[Key, { v: number; t: number }]>);
}

for (const type of ['heap', 'lmdb'] as const) {
  describe(`state TTL with incremental checkpoints on the ${type} backend`, () => {
    test('a key changed since the base and expired by the checkpoint is removed by the delta: no value of it comes back from the chain', async () => {
      const job = join(dir, type);
      const chk = (n: number) => join(job, `chk-${n}`);
      const clock = new Clock();
      const b = backend(type, clock);
      write(b, [...untouched(), ...keys('w'), ...keys('y')], 1);
      const h1 = await snapshot(b, 1, chk(1), null);
      assert.equal(h1.deltas, undefined);
      clock.t = 100;
      write(b, keys('w'), 2);
      clock.t = 1_150;
      // u (written at 0, untouched) and w (changed at 100) have expired; y is live until 2150.
      write(b, keys('y'), 3);
      const h2 = await snapshot(b, 2, chk(2), 1);
      assert.deepEqual(h2.deltas?.map((d) => d.writtenBy), [2], 'checkpoint 2 is a delta on checkpoint 1');
      const sp = await snapshot(b, 3, join(dir, `${type}-sp-original`), undefined, 'savepoint');

      const chain = held(h2, chk(2));
      for (const k of keys('w')) assert.equal(chain.has(k), false, `${k} (expired, changed since the base) is not in the chain`);
      for (const k of keys('y')) assert.deepEqual(chain.get(k), { v: 3, t: 1_150 });
      // Untouched since the base: still the base file's entry, with its timestamp (expired).
      for (const k of untouched()) assert.deepEqual(chain.get(k), { v: 1, t: 0 });

      const restored = backend(type, clock);
      await fileCheckpointStorageWorkerView.restoreKeyed(restored, { keyed: [h2], operator: {} }, chk(2));
      assert.deepEqual(read(restored, keys('w')), new Map(keys('w').map((k) => [k, undefined])), 'no value of w comes back');
      assert.deepEqual(read(restored, keys('y')), new Map(keys('y').map((k) => [k, 3])));
      const spRestored = await snapshot(restored, 4, join(dir, `${type}-sp-restored`), undefined, 'savepoint');
      const expected = held(sp, join(dir, `${type}-sp-original`));
      assert.deepEqual([...expected.keys()].sort(), keys('y').sort());
      assert.deepEqual(held(spRestored, join(dir, `${type}-sp-restored`)), expected, 'a full snapshot after the restore holds what one of the original holds');
      b.close();
      restored.close();
    });
  });
}
