// State TTL with incremental checkpoints (manual clock) on the lmdb and the heap backend, cleanup
// in the background (the default): each incremental checkpoint removes expired entries from the
// backend (the local store on lmdb; Flink's RocksDB compaction filter), also of keys no record
// touches again, so its delta writes them as removed (on the heap, with most entries changed so,
// the checkpoint is a full base instead), a restore from the chain brings none of them back (not
// even into the store), and the next full base of the chain holds none. A state that disables
// background cleanup keeps them in the chain until they are read.
import { after, before, test } from 'node:test';
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
  dir = makeTempDir('ttl-compaction');
});
after(() => removeDir(dir));

const clock = { t: 0 };
let made = 0;
function backend(type: StateBackendType): KeyedStateBackend {
  // maxDeltas 1: the second checkpoint after a base is a full base again.
  const factory = type === 'heap' ? createHeapStateBackend({ maxDeltas: 1 }) : new LmdbStateBackend({ localDir: join(dir, `local-${++made}`), cacheEntries: 16, incremental: { maxDeltas: 1 }, snapshotThread: true });
  return factory.createKeyedStateBackend({ jobId: 'job', uid: 'ttl', subtask: 0, attempt: 0, keyGroupRange: RANGE, maxParallelism: MAX, describe: () => 'the test backend', now: () => clock.t });
}

const keys = (prefix: string, n = 50) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
/** Written once at the start and never touched again: fewer than a checkpoint's compaction reads. */
const untouched = keys('u', 300);

function write(b: KeyedStateBackend, d: ValueStateDescriptor<number>, ks: string[], value: number): void {
  const s = b.getValueState(d);
  for (const k of ks) {
    b.setCurrentKey(k);
    s.update(value);
  }
}

async function snapshot(b: KeyedStateBackend, id: number, location: string, base: number | null): Promise<KeyedStateHandle> {
  const keyed = b.snapshot({ checkpointId: id, type: 'checkpoint', incrementalBase: base });
  try {
    const s = await fileCheckpointStorageWorkerView.writeSnapshot({ checkpointId: id, location }, [{ uid: 'ttl', operatorId: 'op', keyed, operator: new Map() }], { vertexId: 'v', subtask: 0, headUid: 'ttl' }, new AbortController().signal);
    return s.operators[0]!.keyed!;
  } finally {
    for (const t of [...keyed.tables, ...(keyed.incremental?.tables ?? [])]) t.snapshot.release();
  }
}

/** The keys the files of a handle hold, base and deltas merged (what a restore gets). */
function held(handle: KeyedStateHandle, location: string): Key[] {
  const entries = readAllEntries(readKeyedState(handle, (f) => join(location, f), RANGE)).get('v');
  return ([...(entries?.values() ?? [])].flat() as Array<[Key, unknown]>).map(([k]) => k).sort();
}

/** Keys of state 'v' in a backend's local store. */
const stored = (b: KeyedStateBackend) => [...b.entries(new ValueStateDescriptor('v'))].map(([k]) => k).sort();

async function scenario(type: StateBackendType, name: string, config: StateTtlConfig): Promise<{ delta: Key[]; base: Key[]; local: Key[]; restoredLocal: Key[]; restoredReads: Map<string, number | undefined> }> {
  const d = () => new ValueStateDescriptor<number>('v', { type: Types.int }).enableTimeToLive(config);
  const chk = (n: number) => join(dir, type, name, `chk-${n}`);
  clock.t = 0;
  const b = backend(type);
  write(b, d(), [...untouched, ...keys('y')], 1);
  clock.t = 100;
  write(b, d(), keys('w'), 2);
  const h1 = await snapshot(b, 1, chk(1), null);
  assert.equal(h1.deltas, undefined, 'checkpoint 1 is a base');
  clock.t = 1_150;
  // u (written at 0) and w (at 100) have expired; y, written now, lives until 2150.
  write(b, d(), keys('y'), 3);
  const h2 = await snapshot(b, 2, chk(2), 1);
  if (type === 'lmdb' || name === 'no-background') assert.deepEqual(h2.deltas?.map((x) => x.writtenBy), [2], 'checkpoint 2 is a delta on checkpoint 1');
  const local = stored(b);
  const restored = backend(type);
  await fileCheckpointStorageWorkerView.restoreKeyed(restored, { keyed: [h2], operator: {} }, chk(2));
  const restoredLocal = stored(restored);
  const s = restored.getValueState(d());
  const restoredReads = new Map([...untouched, ...keys('w'), ...keys('y')].map((k) => (restored.setCurrentKey(k), [k, s.value()])));
  const h3 = await snapshot(b, 3, chk(3), 2);
  if (h2.deltas !== undefined) assert.equal(h3.deltas, undefined, 'checkpoint 3 is a full base again (maxDeltas 1)');
  const result = { delta: held(h2, chk(2)), base: held(h3, chk(3)), local, restoredLocal, restoredReads };
  b.close();
  restored.close();
  return result;
}

for (const type of ['lmdb', 'heap'] as const) {
  test(`${type}, incremental checkpoints, TTL cleaned up in the background: expired entries leave the backend, the delta and the next base; a restore brings none back`, async () => {
    const live = keys('y').map((k) => `${k}`).sort();
    const r = await scenario(type, 'background', StateTtlConfig.newBuilder(TTL).build());
    assert.deepEqual(r.local, live, 'the local store holds only the live keys after the checkpoint');
    assert.deepEqual(r.delta, live, 'the chain (base + delta) holds only the live keys');
    assert.deepEqual(r.restoredLocal, live, 'the restored store holds only the live keys');
    for (const [k, v] of r.restoredReads) assert.equal(v, k.startsWith('y') ? 3 : undefined, k);
    assert.deepEqual(r.base, live, 'the next full base holds only the live keys');
  });

  test(`${type}, incremental checkpoints, background cleanup disabled: expired entries stay until read (not returned)`, async () => {
    const r = await scenario(type, 'no-background', StateTtlConfig.newBuilder(TTL).disableCleanupInBackground().build());
    const all = [...untouched, ...keys('w'), ...keys('y')].sort();
    assert.deepEqual(r.delta, all, 'the chain still holds the expired keys');
    assert.deepEqual(r.restoredLocal, all);
    for (const [k, v] of r.restoredReads) assert.equal(v, k.startsWith('y') ? 3 : undefined, k);
  });
}
