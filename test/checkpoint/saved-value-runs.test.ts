// Values a copy-on-write snapshot saved while its state file was being written, encoded as they
// were saved (saved-value-runs.ts): the runs of each key group's block, their headers, a value
// the codec cannot write; and whole files written while records change every kind of state on
// the heap backend, which hold exactly the values of the snapshot's moment, read back by the
// reader, restored into heap and lmdb, and fail naming a value that does not fit its type.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ListStateDescriptor, MapStateDescriptor, SerializationError, Types, ValueStateDescriptor } from '../../src/index.ts';
import { SavedValueRuns } from '../../src/checkpoint/saved-value-runs.ts';
import { stateValueCodec } from '../../src/checkpoint/state-value-codec.ts';
import { readKeyedStateFile, writeKeyedStateFile } from '../../src/checkpoint/keyed-state-file.ts';
import { readAllEntries } from '../../src/checkpoint/keyed-state-file-reader.ts';
import { KEYS_INT, KEYS_STRING, KEYS_TAGGED, readKey } from '../../src/checkpoint/state-key-encoding.ts';
import { snapshotOf } from '../../src/serialization/serializer-snapshot.ts';
import { DataInput } from '../../src/serialization/data-input.ts';
import { DataOutput } from '../../src/serialization/data-output.ts';
import type { KeyedStateHandle } from '../../src/checkpoint/state-handles.ts';
import type { KeyedStateBackend } from '../../src/state/keyed-state-backend.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
import { fieldAggregateOf, fieldAggregator } from '../../src/api/field-aggregator.ts';
import { keyGroupFor, type Key } from '../../src/state/key-group.ts';
import { stateKey, userKey } from '../../src/state/state-key.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { keyedBackend, STATE_BACKENDS } from '../fixtures/state-backends.ts';
import { jsonTextSerializer } from '../fixtures/json-text-serializer.ts';

const MAX = 128;
let dir: string;
before(() => {
  dir = makeTempDir('saved-value-runs');
});
after(() => removeDir(dir));

/** The blocks of `bytes` as the file reader walks them: [stateIndex, keyGroup, runs of [encoding, pairs]]. */
function blocks(bytes: Uint8Array, decode: (input: DataInput) => unknown): Array<{ state: number; keyGroup: number; runs: Array<{ encoding: number; pairs: Array<[Key, unknown]> }> }> {
  const input = new DataInput(bytes);
  const out: ReturnType<typeof blocks> = [];
  while (input.pos < bytes.length) {
    const state = input.readVarUint();
    const keyGroup = input.readVarUint();
    const runs: Array<{ encoding: number; pairs: Array<[Key, unknown]> }> = [];
    for (;;) {
      const n = input.readVarUint();
      if (n === 0) break;
      const encoding = input.readByte();
      const pairs: Array<[Key, unknown]> = [];
      for (let i = 0; i < n; i++) pairs.push([readKey(encoding, input), decode(input)]);
      runs.push({ encoding, pairs });
    }
    out.push({ state, keyGroup, runs });
  }
  return out;
}

describe('saved value runs', () => {
  const loose = snapshotOf(new ValueStateDescriptor<unknown>('loose').serializer);

  test('a key group block holds its saved values in order, a run per key encoding and at most `slice` pairs, with headers of one and two byte counts', () => {
    const runs = new SavedValueRuns(4, 200, () => stateValueCodec(loose));
    const saved: Array<[Key, unknown]> = [];
    for (let i = 0; i < 450; i++) {
      const key: Key = i < 130 || i >= 300 ? i : `s${i}`;
      const value = { n: i, tag: i % 3 === 0 ? 'x' : null };
      assert.equal(runs.sink(2, key, value), true);
      saved.push([key, value]);
    }
    assert.equal(runs.sink(0, true, [1, 2]), true);
    const out = DataOutput.growable();
    assert.equal(runs.writeBlock(1, 5, 11, out), 0, 'no values saved in key group 1: no block');
    assert.equal(out.pos, 0);
    assert.equal(runs.writeBlock(2, 5, 12, out), 450);
    assert.equal(runs.writeBlock(0, 5, 10, out), 1);
    assert.equal(runs.writeBlock(2, 5, 12, out), 0, 'a block is written once');
    const codec = stateValueCodec(loose);
    const read = blocks(out.written(), (input) => codec.decode(input));
    // Each block decodes with a fresh codec (the schemaless codec's schema is announced per block).
    assert.deepEqual(read.map((b) => [b.state, b.keyGroup]), [[5, 12], [5, 10]]);
    assert.deepEqual(read[0]!.runs.map((r) => [r.encoding, r.pairs.length]), [[KEYS_INT, 130], [KEYS_STRING, 170], [KEYS_INT, 150]]);
    assert.deepStrictEqual(read[0]!.runs.flatMap((r) => r.pairs), saved);
    assert.deepStrictEqual(read[1]!.runs, [{ encoding: KEYS_TAGGED, pairs: [[true, [1, 2]]] }]);
  });

  test('a value the codec cannot write is refused, and so is every value after it; what came before is whole', () => {
    const counter = snapshotOf(new ValueStateDescriptor('counter', { type: Types.struct({ n: Types.int }) }).serializer);
    const runs = new SavedValueRuns(2, 64, () => stateValueCodec(counter));
    assert.equal(runs.sink(0, 'a', { n: 1 }), true);
    assert.equal(runs.sink(0, 'b', { n: 'two' }), false);
    assert.equal(runs.sink(0, 'c', { n: 3 }), false, 'refused after a failure');
    assert.equal(runs.sink(1, 'd', { n: 4 }), false);
    const out = DataOutput.growable();
    assert.equal(runs.writeBlock(0, 0, 0, out), 1);
    assert.equal(runs.writeBlock(1, 0, 1, out), 0);
    const codec = stateValueCodec(counter);
    assert.deepStrictEqual(blocks(out.written(), (i) => codec.decode(i)), [{ state: 0, keyGroup: 0, runs: [{ encoding: KEYS_STRING, pairs: [['a', { n: 1 }]] }] }]);
  });
});

const jsonText = jsonTextSerializer(3);

const KEYS = 6000;
const keyOf = (i: number): Key => (i % 5 === 0 ? i : i % 5 === 1 ? ['c', i] : `k${i}`);

/** The states of every kind on a heap backend, and how records change them. */
function states(b: KeyedStateBackend) {
  const counts = b.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
  const loose = b.getValueState(new ValueStateDescriptor<unknown>('loose'));
  const lists = b.getListState(new ListStateDescriptor('list', { elementType: Types.string }));
  const maps = b.getMapState(new MapStateDescriptor('map', { keyType: Types.string, valueType: Types.int }));
  const custom = b.getValueState(new ValueStateDescriptor<unknown>('custom', { serializer: jsonText }));
  const sum = (b as HeapKeyedStateBackend).inPlaceFolder(new ValueStateDescriptor<{ key: string; n: number }>('sum'), fieldAggregateOf(fieldAggregator<{ key: string; n: number }>('n', 'sum'))!);
  /** Record `step` for key i: every state changes (some in place, some removed and created again). */
  const apply = (i: number, step: number): void => {
    const key = keyOf(i);
    b.setCurrentKey(key);
    counts.update(i + step);
    if ((i + step) % 7 === 3) loose.clear();
    else loose.update(step % 2 === 0 ? { i, step, tags: [`t${step}`] } : `text ${i} ${step}`);
    lists.add(`${step}`);
    if (step > 0 && i % 11 === 0) lists.clear();
    maps.put(`m${step % 3}`, step);
    if (i % 13 === 0) custom.clear();
    else custom.update({ i, step });
    sum(key, { key: String(i), n: step + 1 });
  };
  return { apply };
}

/** What every state holds, as plain data by state and key (a custom value as its serializer reads it). */
function contents(b: HeapKeyedStateBackend): Map<string, Map<Key, unknown>> {
  const out = new Map<string, Map<Key, unknown>>();
  for (const [name, s] of b.states) {
    const m = new Map<Key, unknown>();
    for (const map of s.table.maps) for (const [k, e] of map) m.set(k, structuredClone(name === 'sum' ? fieldAggregateOf(fieldAggregator('n', 'sum'))!.toStored(e.value) : e.value));
    out.set(name, m);
  }
  return out;
}

function readBack(handle: KeyedStateHandle, max = MAX): { values: Map<string, Map<Key, unknown>>; blocksPerGroup: Map<string, number> } {
  const file = readKeyedStateFile(handle, (f) => f, { start: 0, end: max - 1 });
  const blocksPerGroup = new Map<string, number>();
  for (const kg of file.keyGroups) {
    file.readKeyGroup(kg, (info, g) => {
      blocksPerGroup.set(`${info.name}/${g}`, (blocksPerGroup.get(`${info.name}/${g}`) ?? 0) + 1);
      return () => {};
    });
  }
  const values = new Map<string, Map<Key, unknown>>();
  for (const [name, byGroup] of readAllEntries(readKeyedStateFile(handle, (f) => f, { start: 0, end: max - 1 }))) {
    const m = new Map<Key, unknown>();
    for (const [kg, entries] of byGroup) {
      for (const [k, v] of entries) {
        assert.equal(m.has(k), false, `key ${String(k)} of state ${name} is in one block only`);
        assert.equal(keyGroupFor(userKey(k), max), kg);
        m.set(k, name === 'custom' ? jsonText.deserialize(v as Uint8Array) : v);
      }
    }
    values.set(name, m);
  }
  return { values, blocksPerGroup };
}

/** Writes a snapshot of `b` while `change(step)` runs between the writer's turns; returns the handle and the values at the snapshot. */
async function writeWhileChanging(b: HeapKeyedStateBackend, name: string, change: (turn: number) => void, signal?: AbortSignal) {
  const expected = contents(b);
  const captured = b.snapshot();
  let done = false;
  try {
    const writing = writeKeyedStateFile(join(dir, name), captured, signal).finally(() => (done = true));
    let turns = 0;
    while (!done) {
      change(turns++);
      await new Promise((r) => setImmediate(r));
    }
    return { handle: await writing, expected, turns };
  } finally {
    for (const t of captured.tables) t.snapshot.release();
  }
}

describe('state files written while records change the heap backend', () => {
  for (const [what, perTurn, keys, max] of [
    ['every key changed before the writer starts (all saved, none walked)', KEYS, KEYS, MAX],
    ['keys changed a few at a time while the writer goes on (saved and walked)', 150, KEYS, MAX],
    // Key groups of several slices: the writer yields inside a key group, where entries it has not reached yet are saved.
    ['keys changed while the writer is inside a key group of several slices', 300, 24_000, 2],
  ] as const) {
    test(`${what}: the file holds the values of the snapshot's moment, each key once`, async () => {
      const b = new HeapKeyedStateBackend({ start: 0, end: max - 1 }, max, 'the-op', () => 'the test backend');
      const { apply } = states(b);
      for (let i = 0; i < keys; i++) apply(i, 0);
      for (let i = 0; i < keys; i += 2) apply(i, 1);
      let next = 0;
      let step = 2;
      const { handle, expected, turns } = await writeWhileChanging(b, `changing-${perTurn}`, () => {
        for (let n = 0; n < perTurn; n++) {
          apply(next, step);
          if (++next === keys) (next = 0), step++;
        }
      });
      assert.ok(turns > 1 || perTurn === KEYS, `the writer took ${turns} turns`);
      const { values, blocksPerGroup } = readBack(handle, max);
      for (const [name, m] of expected) assert.deepStrictEqual(values.get(name) ?? new Map(), m, `state ${name}`);
      assert.equal(handle.entries, [...expected.values()].reduce((n, m) => n + m.size, 0));
      const twice = [...blocksPerGroup.values()].filter((n) => n === 2).length;
      assert.ok(twice > 0, 'some key groups have a block of saved values after the walked one');
      assert.ok([...blocksPerGroup.values()].every((n) => n <= 2));

      // The next snapshot (no saves) holds the values of its own moment.
      const again = await writeWhileChanging(b, `after-${perTurn}`, () => {});
      assert.deepStrictEqual(readBack(again.handle, max).values, again.expected);
    });
  }

  for (const into of STATE_BACKENDS) test(`a file with saved blocks restores into the ${into} backend`, async () => {
    const b = new HeapKeyedStateBackend({ start: 0, end: MAX - 1 }, MAX, 'the-op', () => 'the test backend');
    const { apply } = states(b);
    for (let i = 0; i < KEYS; i++) apply(i, 0);
    let next = 0;
    const { handle } = await writeWhileChanging(b, `restore-${into}`, () => {
      for (let n = 0; n < 400 && next < KEYS; n++) apply(next++, 1);
    });
    const r = keyedBackend(into, { start: 0, end: MAX - 1 }, MAX, 'the-op');
    const file = readKeyedStateFile(handle, (f) => f, r.keyGroupRange);
    for (const kg of file.keyGroups) file.readKeyGroup(kg, (info, g) => r.restoreTarget(info, g));
    const counts = r.getValueState(new ValueStateDescriptor('count', { type: Types.int }));
    const lists = r.getListState(new ListStateDescriptor('list', { elementType: Types.string }));
    for (let i = 0; i < KEYS; i++) {
      r.setCurrentKey(keyOf(i));
      assert.equal(counts.value(), i);
      assert.deepEqual(lists.get(), ['0']);
    }
  });

  test('a changed value that does not fit its declared type fails the write naming uid, state and key', async () => {
    const b = new HeapKeyedStateBackend({ start: 0, end: MAX - 1 }, MAX, 'the-op', () => 'the test backend');
    const counter = b.getValueState(new ValueStateDescriptor('counter', { type: Types.struct({ n: Types.int }) }));
    for (let i = 0; i < 50; i++) {
      b.setCurrentKey(`k${i}`);
      counter.update({ n: i });
    }
    b.setCurrentKey('odd one');
    counter.update({ n: '3' as unknown as number });
    const captured = b.snapshot();
    try {
      const writing = writeKeyedStateFile(join(dir, 'misfit'), captured);
      // Saved as it changes: the sink refuses it, the table keeps it aside, the writer meets it.
      counter.update({ n: 4 });
      await assert.rejects(writing, (e: unknown) => {
        assert.ok(e instanceof SerializationError, String(e));
        assert.equal(e.operatorUid, 'the-op');
        assert.equal(e.state, 'counter');
        assert.equal(e.key, 'string "odd one"');
        return true;
      });
    } finally {
      for (const t of captured.tables) t.snapshot.release();
    }
  });
});
