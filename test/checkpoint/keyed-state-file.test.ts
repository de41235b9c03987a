// Keyed state files of format 2: states written by their serializers, per key group and state a
// block of runs of [key, value] pairs. Round trips of every kind of state and key, a reader of
// some key groups reading only theirs, checksums per key group, a truncated or undecodable file
// named with its path and the offset, values that do not fit their declared type, a file of
// several megabytes, and a write aborted between two runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import {
  CheckpointCorruptedError,
  ListStateDescriptor,
  MapStateDescriptor,
  SerializationError,
  Types,
  ValueStateDescriptor,
} from '../../src/index.ts';
import { readKeyedStateFile, writeKeyedStateFile, KEYED_STATE_FILE_FORMAT } from '../../src/checkpoint/keyed-state-file.ts';
import { readAllEntries } from '../../src/checkpoint/keyed-state-file-reader.ts';
import type { KeyedStateHandle } from '../../src/checkpoint/state-handles.ts';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.ts';
import type { StateBackendType } from '../../src/state/state-backend.ts';
import { keyGroupFor, type Key } from '../../src/state/key-group.ts';
import { stateKey } from '../../src/state/state-key.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { keyedBackend, STATE_BACKENDS } from '../fixtures/state-backends.ts';
import { jsonTextSerializer } from '../fixtures/json-text-serializer.ts';

const MAX = 128;
let dir: string;
before(() => {
  dir = makeTempDir('keyed-state-file');
});
after(() => removeDir(dir));

type Backend = KeyedStateBackend & { readonly unclaimedStates: string[] };

function backendOf(type: StateBackendType, start = 0, end = MAX - 1): Backend {
  return keyedBackend(type, { start, end }, MAX, 'the-op') as Backend;
}

const jsonText = jsonTextSerializer(3);

const Counter = Types.struct({ n: Types.int, label: Types.nullable(Types.string) });
const KEYS: Key[] = ['a', 'b', 'ü😀', '', 1, 2, -3, 2 ** 40, 1.5, -0, NaN, 7n, 2n ** 70n, true, false, null, ['a', 1], ['a', '1']];

interface Model {
  /** The key group of each key as the tables hold it (a composite key's is its array's). */
  groups: Map<Key, number>;
  counts: Map<Key, number>;
  counters: Map<Key, { n: number; label: string | null }>;
  loose: Map<Key, unknown>;
  lists: Map<Key, string[]>;
  maps: Map<Key, Map<string, bigint>>;
  custom: Map<Key, unknown>;
}

/** Every kind of state, filled for KEYS (and 3,000 more string keys, so key groups have several runs). */
function filled(b: KeyedStateBackend): Model {
  const counts = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
  const counters = b.getValueState(new ValueStateDescriptor('counter', { type: Counter }));
  const loose = b.getValueState(new ValueStateDescriptor<unknown>('loose'));
  const lists = b.getListState(new ListStateDescriptor('list', { elementType: Types.string }));
  const maps = b.getMapState(new MapStateDescriptor('map', { keyType: Types.string, valueType: Types.bigint }));
  const custom = b.getValueState(new ValueStateDescriptor<unknown>('custom', { serializer: jsonText }));
  const model: Model = { groups: new Map(), counts: new Map(), counters: new Map(), loose: new Map(), lists: new Map(), maps: new Map(), custom: new Map() };
  const looseValues = [{ a: 1 }, new Map([[1, 'x']]), 5n, new Date(3), 'text', [1, 'a'], { a: 2 }, undefined, null, new Set([1]), new Uint8Array([1, 2])];
  const keys = [...KEYS, ...Array.from({ length: 3000 }, (_, i) => `k${i}`)];
  keys.forEach((key, i) => {
    b.setCurrentKey(key);
    const k = stateKey(key);
    model.groups.set(k, keyGroupFor(key, MAX));
    counts.update(i - 100);
    model.counts.set(k, i - 100);
    if (i % 2 === 0) {
      const c = { n: i, label: i % 4 === 0 ? null : `l${i}` };
      counters.update(c);
      model.counters.set(k, c);
    }
    const l = looseValues[i % looseValues.length];
    if (l !== undefined) {
      loose.update(l);
      model.loose.set(k, l);
    }
    if (i % 3 === 0) {
      lists.addAll([`x${i}`, `y${i}`]);
      model.lists.set(k, [`x${i}`, `y${i}`]);
      maps.put('m', BigInt(i));
      model.maps.set(k, new Map([['m', BigInt(i)]]));
    }
    if (i % 5 === 0) {
      custom.update({ i });
      model.custom.set(k, { i });
    }
  });
  return model;
}

async function write(b: KeyedStateBackend, name: string, signal?: AbortSignal): Promise<{ handle: KeyedStateHandle; path: string }> {
  const path = join(dir, name);
  const captured = b.snapshot();
  try {
    return { handle: await writeKeyedStateFile(path, captured, signal), path };
  } finally {
    for (const t of captured.tables) t.snapshot.release();
  }
}

const asIs = (f: string) => f;

/** What a reader gives back, by state and key (each in its key group, when `groups` says which). */
function readBack(handle: KeyedStateHandle, start = 0, end = MAX - 1, groups?: Map<Key, number>): Map<string, Map<Key, unknown>> {
  const byState = readAllEntries(readKeyedStateFile(handle, asIs, { start, end }));
  const out = new Map<string, Map<Key, unknown>>();
  for (const [name, byGroup] of byState) {
    const m = new Map<Key, unknown>();
    for (const [kg, entries] of byGroup) {
      for (const [k, v] of entries) {
        if (groups) assert.equal(groups.get(k), kg, `key ${String(k)} in key group ${kg}`);
        m.set(k, v);
      }
    }
    out.set(name, m);
  }
  return out;
}

for (const type of STATE_BACKENDS) {
const backend = (start = 0, end = MAX - 1): Backend => backendOf(type, start, end);
describe(`keyed state file format 2, written by the ${type} backend`, () => {
  test('every kind of state and key round-trips; the handle records format, serializer snapshots and per key group ranges', async () => {
    const b = backend();
    const model = filled(b);
    const { handle, path } = await write(b, `round-trip-${type}`);
    assert.equal(handle.format, KEYED_STATE_FILE_FORMAT);
    assert.equal(readFileSync(path).subarray(0, 8).toString('latin1'), 'WEIRKSF\u0002');
    assert.deepEqual(
      handle.states.map((s) => [s.name, s.serializer, s.version, s.snapshot]),
      [
        ['count', 'weir-types', 1, { kind: 'weir-types', version: 1, schema: Types.int }],
        ['counter', 'weir-types', 1, { kind: 'weir-types', version: 1, schema: Counter }],
        ['loose', 'msgpack', 1, { kind: 'msgpack', version: 1, schema: Types.any }],
        ['list', 'weir-types', 1, { kind: 'weir-types', version: 1, schema: Types.array(Types.string) }],
        ['map', 'weir-types', 1, { kind: 'weir-types', version: 1, schema: Types.map(Types.string, Types.bigint) }],
        ['custom', 'json-text', 3, { kind: 'json-text', version: 3, schema: Types.any }],
      ],
    );
    const entries = [model.counts, model.counters, model.loose, model.lists, model.maps, model.custom].reduce((n, m: Map<Key, unknown>) => n + m.size, 0);
    assert.equal(handle.entries, entries);
    assert.equal(handle.bytes, readFileSync(path).length);
    let next = 8;
    for (const g of handle.keyGroups) {
      assert.equal(g.offset, next, `key group ${g.keyGroup} follows the one before`);
      assert.equal(typeof g.crc32, 'number');
      next = g.offset + g.length;
    }
    assert.equal(next, handle.bytes);

    const back = readBack(handle, 0, MAX - 1, model.groups);
    assert.deepStrictEqual(back.get('count'), model.counts);
    assert.deepStrictEqual(back.get('counter'), model.counters);
    assert.deepStrictEqual(back.get('loose'), model.loose);
    assert.deepStrictEqual(back.get('list'), model.lists);
    assert.deepStrictEqual(back.get('map'), model.maps);
    // A serializer of the job's own: its bytes, for its deserialize when the state is asked for.
    const custom = new Map([...back.get('custom')!].map(([k, v]) => [k, jsonText.deserialize(v as Uint8Array)]));
    assert.deepStrictEqual(custom, model.custom);
  });

  for (const into of STATE_BACKENDS) test(`restored into the ${into} backend and asked for by the same descriptors, the states hold what was written`, async () => {
    const a = backend();
    const model = filled(a);
    const { handle } = await write(a, `restore-${type}-${into}`);
    const b = backendOf(into);
    const file = readKeyedStateFile(handle, asIs, b.keyGroupRange);
    for (const kg of file.keyGroups) file.readKeyGroup(kg, (info, g) => b.restoreTarget(info, g));
    const custom = b.getValueState(new ValueStateDescriptor<unknown>('custom', { serializer: jsonText }));
    const counts = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    const maps = b.getMapState(new MapStateDescriptor('map', { keyType: Types.string, valueType: Types.bigint }));
    for (const key of KEYS) {
      b.setCurrentKey(key);
      const k = stateKey(key);
      assert.equal(counts.value(), model.counts.get(k));
      assert.deepStrictEqual(custom.value(), model.custom.get(k));
      assert.equal(maps.get('m'), model.maps.get(k)?.get('m'));
    }
    // States the operator did not ask for yet are written again as they were stored.
    assert.deepEqual(b.unclaimedStates.sort(), ['counter', 'list', 'loose']);
    const { handle: again } = await write(b, `restore-again-${type}-${into}`);
    assert.deepEqual(again.states.map((s) => s.snapshot), handle.states.map((s) => s.snapshot));
    const back = readBack(again);
    assert.deepStrictEqual(back.get('loose'), model.loose);
    assert.deepStrictEqual(back.get('counter'), model.counters);
  });

  test('a reader of some key groups gets only those, and reads only their bytes', async () => {
    const b = backend();
    const model = filled(b);
    const { handle, path } = await write(b, `subset-${type}`);
    const range = { start: 40, end: 79 };
    const back = readBack(handle, range.start, range.end, model.groups);
    const inRange = (m: Map<Key, unknown>) => new Map([...m].filter(([k]) => model.groups.get(k)! >= range.start && model.groups.get(k)! <= range.end));
    assert.deepStrictEqual(back.get('count'), inRange(model.counts));
    // Damage outside the range does not matter to this reader; inside it does.
    const bytes = readFileSync(path);
    const outside = handle.keyGroups.find((g) => g.keyGroup < range.start)!;
    bytes[outside.offset + 3]! ^= 0xff;
    writeFileSync(path, bytes);
    assert.deepStrictEqual(readBack(handle, range.start, range.end).get('count'), inRange(model.counts));
    assert.throws(() => readBack(handle), /checksum mismatch in key group/);
  });

  test('a damaged key group: CheckpointCorruptedError naming the file, the key group and its bytes', async () => {
    const b = backend();
    filled(b);
    const { handle, path } = await write(b, `damaged-${type}`);
    const g = handle.keyGroups[5]!;
    const bytes = readFileSync(path);
    bytes[g.offset + (g.length >> 1)]! ^= 0x5a;
    writeFileSync(path, bytes);
    assert.throws(() => readBack(handle), (e: unknown) => {
      assert.ok(e instanceof CheckpointCorruptedError, String(e));
      assert.equal(e.file, path);
      assert.equal(e.offset, g.offset);
      assert.ok(e.message.startsWith(`${path}: checksum mismatch in key group ${g.keyGroup} (bytes ${g.offset}..${g.offset + g.length}`), e.message);
      return true;
    });
  });

  test('a truncated file: CheckpointCorruptedError naming the file and where it ends', async () => {
    const b = backend();
    filled(b);
    const { handle, path } = await write(b, `truncated-${type}`);
    const size = handle.bytes - 100;
    truncateSync(path, size);
    assert.throws(() => readBack(handle), (e: unknown) => {
      assert.ok(e instanceof CheckpointCorruptedError, String(e));
      assert.equal(e.file, path);
      assert.equal(e.offset, size);
      assert.equal(e.message, `${path}: truncated at byte ${size}: the checkpoint recorded ${handle.bytes} bytes`);
      return true;
    });
  });

  test('bytes that pass the checksum but do not decode: CheckpointCorruptedError with the offset in the file', async () => {
    const b = backend();
    b.setCurrentKey('a');
    b.getValueState(new ValueStateDescriptor('count', { type: Types.int })).update(1);
    const { handle, path } = await write(b, `undecodable-${type}`);
    const g = handle.keyGroups[0]!;
    const bytes = readFileSync(path);
    // The run's key encoding byte: block = state index, key group (1 byte each below 128), count.
    const at = g.offset + 3;
    bytes[at] = 9;
    writeFileSync(path, bytes);
    const { crc32 } = await import('node:zlib');
    const patched = { ...handle, keyGroups: handle.keyGroups.map((x) => (x === g ? { ...x, crc32: crc32(bytes.subarray(g.offset, g.offset + g.length)) } : x)) };
    assert.throws(() => readBack(patched), (e: unknown) => {
      assert.ok(e instanceof CheckpointCorruptedError, String(e));
      assert.equal(e.offset, at);
      assert.match(e.message, new RegExp(`^${path.replace(/[/.]/g, '\\$&')}: cannot be read at byte ${at} \\(key group ${g.keyGroup}\\): cannot deserialize: a key encoding 9`));
      assert.ok(e.cause instanceof SerializationError);
      return true;
    });
  });

  test('a value that does not fit its declared type fails the write naming uid, state, key and field path', async () => {
    const b = backend();
    const counter = b.getValueState(new ValueStateDescriptor('counter', { type: Counter }));
    for (let i = 0; i < 50; i++) {
      b.setCurrentKey(`k${i}`);
      counter.update({ n: i, label: null });
    }
    b.setCurrentKey('odd one');
    counter.update({ n: '3' as unknown as number, label: null });
    await assert.rejects(write(b, 'misfit'), (e: unknown) => {
      assert.ok(e instanceof SerializationError, String(e));
      assert.equal(e.operatorUid, 'the-op');
      assert.equal(e.state, 'counter');
      assert.equal(e.key, 'string "odd one"');
      assert.equal(e.path, '$.n');
      assert.equal(e.message, `operator uid 'the-op', state 'counter', key string "odd one": cannot serialize $.n: expected int, got string "3"`);
      return true;
    });
  });

  test('a file of several megabytes (several buffers flushed) reads back whole, every key group and the whole file passing their checksums', async () => {
    const b = backend();
    const s = b.getValueState(new ValueStateDescriptor<string>('text', { type: Types.string }));
    const model = new Map<Key, string>();
    // About 5 MB: several flushes, so buffers are reused after their writes.
    for (let i = 0; i < 50_000; i++) {
      const value = `v${i}-`.padEnd(100, String.fromCharCode(97 + (i % 26)));
      b.setCurrentKey(i);
      s.update(value);
      model.set(stateKey(i), value);
    }
    const { handle, path } = await write(b, `large-${type}`);
    assert.ok(handle.bytes > 4 << 20, `${handle.bytes} bytes`);
    const bytes = readFileSync(path);
    assert.equal(bytes.length, handle.bytes);
    assert.equal(crc32(bytes), handle.crc32);
    assert.deepStrictEqual(readBack(handle).get('text'), model);
  });

  test('an aborted write stops between two runs', async () => {
    const b = backend();
    const s = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    for (let i = 0; i < 200_000; i++) {
      b.setCurrentKey(i);
      s.update(i);
    }
    const controller = new AbortController();
    const writing = write(b, 'aborted', controller.signal);
    setImmediate(() => controller.abort(new Error('checkpoint 7 expired')));
    await assert.rejects(writing, /checkpoint 7 expired/);
  });
});
}
