// StateTable's copy-on-write snapshots: whatever happens to the table after snapshot(), the
// snapshot reads back the entries exactly as they were when it was taken, whether it is read in
// frames (keyGroupSlices) or into the caller's arrays (keyGroupEntries, what state files use).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Key } from '../../src/index.ts';
import { StateTable, type TableSnapshot } from '../../src/state/state-table.ts';
import { seededRandom } from '../../src/coordinator/fault-injector.ts';

interface Doc {
  n: number;
  tags: string[];
}

const copyDoc = (v: Doc): Doc => structuredClone(v);

/** The two ways a snapshot is read, each as slices of [key, value]. */
type Slices = <V>(snap: TableSnapshot<V>, kg: number, slice: number) => Generator<Array<[Key, V]>>;
const READERS: ReadonlyArray<{ readonly name: string; readonly slices: Slices }> = [
  { name: 'keyGroupSlices', slices: (snap, kg, slice) => snap.keyGroupSlices(kg, slice) },
  {
    name: 'keyGroupEntries',
    slices: function* <V>(snap: TableSnapshot<V>, kg: number, slice: number): Generator<Array<[Key, V]>> {
      const keys: Key[] = new Array(slice);
      const values: unknown[] = new Array(slice);
      for (const n of snap.keyGroupEntries(kg, slice, keys, values)) {
        assert.ok(n > 0 && n <= slice, `a step of ${n} entries, at most ${slice} asked for`);
        yield Array.from({ length: n }, (_, i) => [keys[i]!, values[i] as V] as [Key, V]);
      }
    },
  },
];

/** Everything a snapshot yields, per key group, as plain sorted data (deep-copied as it is read). */
function readAll<V>(snap: TableSnapshot<V>, keyGroups: number, slice = 3, slices: Slices = READERS[0]!.slices): Map<number, Array<[Key, V]>> {
  const out = new Map<number, Array<[Key, V]>>();
  for (let kg = 0; kg < keyGroups; kg++) {
    const entries: Array<[Key, V]> = [];
    for (const s of slices(snap, kg, slice)) {
      assert.ok(s.length > 0 && s.length <= slice, `a slice of ${s.length} entries, at most ${slice} asked for`);
      for (const [k, v] of s) entries.push([k, structuredClone(v)]);
    }
    entries.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    if (entries.length > 0) out.set(kg, entries);
  }
  return out;
}

/** A plain model: key group -> key -> value, deep-copied on every write. */
type Model<V> = Map<number, Map<Key, V>>;

function modelView<V>(model: Model<V>): Map<number, Array<[Key, V]>> {
  const out = new Map<number, Array<[Key, V]>>();
  for (const [kg, m] of model) {
    if (m.size === 0) continue;
    out.set(kg, [...m].map(([k, v]) => [k, structuredClone(v)] as [Key, V]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))));
  }
  return out;
}

function cloneModel<V>(model: Model<V>): Model<V> {
  return new Map([...model].map(([kg, m]) => [kg, new Map([...m].map(([k, v]) => [k, structuredClone(v)]))]));
}

/** The table's current contents, read through a snapshot that is released at once. */
function readAllCurrent(table: StateTable<Doc>, keyGroups: number): Map<number, Array<[Key, Doc]>> {
  const snap = table.snapshot();
  try {
    return readAll(snap, keyGroups);
  } finally {
    snap.release();
  }
}

for (const via of READERS) {
  describe(`StateTable copy-on-write snapshots (read by ${via.name})`, () => {
    test('a snapshot sees the values at snapshot time despite puts, removes and in-place mutation', () => {
      const table = new StateTable<Doc>(4, copyDoc);
      const model: Model<Doc> = new Map([0, 1, 2, 3].map((kg) => [kg, new Map()]));
      const put = (kg: number, key: string, v: Doc) => {
        table.put(kg, key, v);
        model.get(kg)!.set(key, structuredClone(v));
      };
      for (let kg = 0; kg < 4; kg++) for (let i = 0; i < 7; i++) put(kg, `k${kg}-${i}`, { n: kg * 100 + i, tags: [`t${i}`] });
      const atSnapshot = modelView(model);

      const snap = table.snapshot();
      // Overwrite, delete, mutate what get() returns, add, delete and re-create.
      table.put(0, 'k0-0', { n: -1, tags: ['overwritten'] });
      table.remove(0, 'k0-1');
      const doc = table.get(1, 'k1-2')!;
      doc.n = 999_999;
      doc.tags.push('mutated in place');
      table.get(1, 'k1-3')!.tags.length = 0;
      table.put(2, 'new-after-snapshot', { n: 5, tags: [] });
      table.remove(3, 'k3-4');
      table.put(3, 'k3-4', { n: 4444, tags: ['re-created'] });
      table.remove(2, 'k2-6');
      table.put(2, 'k2-6', { n: 2626, tags: [] });
      table.remove(2, 'k2-6');

      // The table itself shows the changes...
      assert.deepEqual(table.get(1, 'k1-2'), { n: 999_999, tags: ['t2', 'mutated in place'] });
      assert.deepEqual(table.get(1, 'k1-3'), { n: 103, tags: [] });
      assert.equal(table.get(0, 'k0-1'), undefined);
      assert.equal(table.get(2, 'k2-6'), undefined);
      assert.deepEqual(table.get(2, 'new-after-snapshot'), { n: 5, tags: [] });
      // ...the snapshot does not: deleted entries are in it, entries added afterwards are not.
      assert.deepEqual(readAll(snap, 4, 3, via.slices), atSnapshot);
      snap.release();
    });

    test('changes between the slices of a running snapshot do not leak into it', () => {
      const table = new StateTable<Doc>(1, copyDoc);
      for (let i = 0; i < 20; i++) table.put(0, `k${i}`, { n: i, tags: [] });
      const expected = [...Array(20).keys()].map((i) => [`k${i}`, { n: i, tags: [] }] as [Key, Doc]);
      const snap = table.snapshot();
      const seen: Array<[Key, Doc]> = [];
      let round = 0;
      for (const slice of via.slices(snap, 0, 4)) {
        for (const [k, v] of slice) seen.push([k, structuredClone(v)]);
        // Entries keep being added below: a snapshot that visited them would never end.
        if (seen.length > 100) break;
        // Between slices the task goes on processing records.
        round++;
        for (let i = 0; i < 20; i++) {
          const key = `k${i}`;
          if ((i + round) % 3 === 0) table.get(0, key)?.tags.push(`r${round}`);
          else if ((i + round) % 3 === 1) table.put(0, key, { n: -round, tags: [] });
          else table.remove(0, key);
        }
        table.put(0, `late-${round}`, { n: round, tags: [] });
      }
      snap.release();
      const sort = (a: Array<[Key, Doc]>) => [...a].sort((x, y) => String(x[0]).localeCompare(String(y[0])));
      assert.deepEqual(sort(seen), sort(expected));
    });

    test('slices have at most the requested size and together hold every entry once', () => {
      const table = new StateTable<number>(2, (v) => v);
      for (let i = 0; i < 23; i++) table.put(i % 2, `k${i}`, i);
      const snap = table.snapshot();
      for (let kg = 0; kg < 2; kg++) {
        const slices = [...via.slices(snap, kg, 5)];
        assert.ok(slices.every((s) => s.length >= 1 && s.length <= 5), `sizes ${slices.map((s) => s.length)}`);
        const keys = slices.flat().map(([k]) => k as string).sort();
        const want = [...Array(23).keys()].filter((i) => i % 2 === kg).map((i) => `k${i}`).sort();
        assert.deepEqual(keys, want);
      }
      snap.release();
    });

    test('entries deleted after the snapshot also come in slices of the requested size', () => {
      const table = new StateTable<number>(1, (v) => v);
      for (let i = 0; i < 30; i++) table.put(0, `k${i}`, i);
      const snap = table.snapshot();
      for (let i = 0; i < 30; i += 2) table.remove(0, `k${i}`);
      const slices = [...via.slices(snap, 0, 4)];
      assert.ok(slices.every((s) => s.length >= 1 && s.length <= 4), `sizes ${slices.map((s) => s.length)}`);
      assert.deepEqual(slices.flat().map(([, v]) => v).sort((a, b) => a - b), [...Array(30).keys()]);
      snap.release();
    });

    test('a released snapshot stops saving old values; the next snapshot sees the newer values', () => {
      const table = new StateTable<Doc>(1, copyDoc);
      table.put(0, 'a', { n: 1, tags: [] });
      const first = table.snapshot();
      table.put(0, 'a', { n: 2, tags: [] });
      assert.deepEqual(readAll(first, 1, 3, via.slices).get(0), [['a', { n: 1, tags: [] }]]);
      first.release();
      table.get(0, 'a')!.n = 3;
      const second = table.snapshot();
      table.remove(0, 'a');
      assert.deepEqual(readAll(second, 1, 3, via.slices).get(0), [['a', { n: 3, tags: [] }]]);
      second.release();
      assert.equal(table.size, 0);
    });

    test('a snapshot taken while another is still being written copies eagerly and both stay right', () => {
      const table = new StateTable<Doc>(2, copyDoc);
      table.put(0, 'a', { n: 1, tags: [] });
      table.put(1, 'b', { n: 10, tags: [] });
      const first = table.snapshot();
      table.get(0, 'a')!.n = 2;
      table.put(1, 'c', { n: 20, tags: [] });
      const second = table.snapshot();
      // Slices of the eager copy keep the requested size too.
      const big = new StateTable<number>(1, (v) => v);
      for (let i = 0; i < 10; i++) big.put(0, i, i);
      const bigFirst = big.snapshot();
      const bigSecond = big.snapshot();
      big.remove(0, 3);
      for (const snap of [bigFirst, bigSecond]) {
        const slices = [...via.slices(snap, 0, 3)];
        assert.ok(slices.every((x) => x.length >= 1 && x.length <= 3), `sizes ${slices.map((x) => x.length)}`);
        assert.deepEqual(slices.flat().map(([, v]) => v).sort((a, b) => a - b), [...Array(10).keys()]);
      }
      bigFirst.release();
      bigSecond.release();
      table.get(0, 'a')!.n = 3;
      table.remove(1, 'b');
      table.get(1, 'c')!.tags.push('later');
      assert.deepEqual(readAll(first, 2, 3, via.slices), new Map([[0, [['a', { n: 1, tags: [] }]]], [1, [['b', { n: 10, tags: [] }]]]]));
      assert.deepEqual(
        readAll(second, 2, 3, via.slices),
        new Map([
          [0, [['a', { n: 2, tags: [] }]]],
          [1, [['b', { n: 10, tags: [] }], ['c', { n: 20, tags: [] }]]],
        ]),
      );
      first.release();
      second.release();
    });

    test('random operations against a plain model, several snapshots in turn', () => {
      const rnd = seededRandom(4242);
      const KG = 5;
      const table = new StateTable<Doc>(KG, copyDoc);
      const model: Model<Doc> = new Map(Array.from({ length: KG }, (_, kg) => [kg, new Map()]));
      const randomKey = () => `key-${Math.floor(rnd() * 60)}`;
      const mutate = (steps: number) => {
        for (let s = 0; s < steps; s++) {
          const kg = Math.floor(rnd() * KG);
          const key = randomKey();
          const op = rnd();
          const m = model.get(kg)!;
          if (op < 0.35) {
            const v = { n: Math.floor(rnd() * 1000), tags: [String(s)] };
            table.put(kg, key, v);
            m.set(key, structuredClone(v));
          } else if (op < 0.55) {
            table.remove(kg, key);
            m.delete(key);
          } else if (op < 0.85) {
            const v = table.get(kg, key);
            assert.deepEqual(v, m.get(key), `get(${kg}, ${key}) agrees with the model`);
            if (v) {
              v.n += 1;
              v.tags.push('m');
              m.set(key, structuredClone(v));
            }
          } else {
            // Write back the object that was read, as ValueState users do.
            const v = table.get(kg, key);
            if (v) {
              v.n *= 2;
              table.put(kg, key, v);
              m.set(key, structuredClone(v));
            }
          }
        }
      };
      mutate(500);
      for (let round = 0; round < 10; round++) {
        const atSnapshot = modelView(cloneModel(model));
        const snap = table.snapshot();
        // Read part of the snapshot, change the table, read the rest.
        const partial = new Map<number, Array<[Key, Doc]>>();
        for (let kg = 0; kg < KG; kg++) {
          const entries: Array<[Key, Doc]> = [];
          for (const slice of via.slices(snap, kg, 4)) {
            for (const [k, v] of slice) entries.push([k, structuredClone(v)]);
            mutate(15);
          }
          entries.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
          if (entries.length > 0) partial.set(kg, entries);
        }
        snap.release();
        assert.deepEqual(partial, atSnapshot, `round ${round}`);
        mutate(100);
        assert.deepEqual(readAllCurrent(table, KG), modelView(model), `table agrees with the model after round ${round}`);
      }
    });
  });

  describe(`StateTable.fold (snapshots read by ${via.name})`, () => {
    /** A place function that counts its calls: how often a fold needed the key group. */
    function counting(kgOf: (key: Key) => number): { place: (key: Key) => number; calls: () => number } {
      let n = 0;
      return {
        place: (key) => {
          n++;
          return kgOf(key);
        },
        calls: () => n,
      };
    }
    const kgOfKey = (key: Key) => Number(String(key).split('-')[1]) % 4;
    const add = (a: Doc, b: Doc): Doc => ({ n: a.n + b.n, tags: [...a.tags, ...b.tags] });

    test('the first fold of a key stores the value; later ones fold into it, finding the entry without its key group', () => {
      const table = new StateTable<Doc>(4, copyDoc);
      const { place, calls } = counting(kgOfKey);
      const first = { n: 1, tags: ['a'] };
      assert.equal(table.fold('k-1', first, add, place), first);
      assert.deepEqual(table.fold('k-1', { n: 2, tags: ['b'] }, add, place), { n: 3, tags: ['a', 'b'] });
      assert.deepEqual(table.fold('k-1', { n: 3, tags: [] }, add, place), { n: 6, tags: ['a', 'b'] });
      assert.equal(calls(), 1, 'the key group was asked for once');
      assert.deepEqual(table.get(1, 'k-1'), { n: 6, tags: ['a', 'b'] }, 'the entry is in its key group');
    });

    test('a fold sees entries written by put and restored ones, and a removed key starts over', () => {
      const table = new StateTable<number>(4, (v) => v);
      const { place, calls } = counting(kgOfKey);
      const sum = (a: number, b: number) => a + b;
      table.put(2, 'k-2', 10);
      assert.equal(table.fold('k-2', 5, sum, place), 15);
      assert.equal(table.fold('k-2', 5, sum, place), 20);
      table.put(2, 'k-2', 100);
      assert.equal(table.fold('k-2', 1, sum, place), 101, 'a put after the fold is the value folded into');
      table.remove(2, 'k-2');
      assert.equal(table.fold('k-2', 7, sum, place), 7, 'after a remove the key has no value');
      assert.equal(table.get(2, 'k-2'), 7);
      assert.equal(calls(), 2, 'once before the remove, once after');
    });

    test('an error from place leaves the table as it was', () => {
      const table = new StateTable<number>(4, (v) => v);
      const refuse = () => {
        throw new RangeError('not this subtask\'s key');
      };
      assert.throws(() => table.fold('k-3', 1, (a, b) => a + b, refuse), RangeError);
      assert.equal(table.size, 0);
    });

    test('more keys than the entry cache holds fold right', () => {
      const table = new StateTable<number>(4, (v) => v);
      const keys = 70_000;
      for (let round = 1; round <= 2; round++) for (let i = 0; i < keys; i++) table.fold(`k-${i}`, i, (a, b) => a + b, kgOfKey);
      assert.equal(table.size, keys);
      for (const i of [0, 1, 65_535, 65_536, 69_999]) assert.equal(table.get(kgOfKey(`k-${i}`), `k-${i}`), 2 * i);
    });

    test('after a stretch of keys that never come back, hot keys are found without their key group again', () => {
      const table = new StateTable<number>(4, (v) => v);
      const { place, calls } = counting(kgOfKey);
      const sum = (a: number, b: number) => a + b;
      // Every key once: the entry cache fills up without a hit, again and again.
      const cold = 400_000;
      for (let i = 0; i < cold; i++) table.fold(`cold-${i}`, 1, sum, place);
      assert.equal(calls(), cold);
      // Then ten hot keys, long enough for the cache to be tried again.
      for (let i = 0; i < 2_000_000; i++) table.fold(`hot-${i % 10}`, 1, sum, place);
      const before = calls();
      for (let i = 0; i < 100_000; i++) table.fold(`hot-${i % 10}`, 1, sum, place);
      assert.equal(calls(), before, 'the last 100,000 folds of hot keys needed no key group');
      for (let k = 0; k < 10; k++) assert.equal(table.get(kgOfKey(`hot-${k}`), `hot-${k}`), 210_000);
      assert.equal(table.get(kgOfKey('cold-7'), 'cold-7'), 1);
    });

    test('a snapshot in flight keeps the values as of the snapshot, whether fold returns a new object or changes the old one', () => {
      const table = new StateTable<Doc>(4, copyDoc);
      const inPlace = (a: Doc, b: Doc): Doc => {
        a.n += b.n;
        a.tags.push(...b.tags);
        return a;
      };
      for (const fn of [add, inPlace]) {
        for (let i = 0; i < 8; i++) table.fold(`k-${i}`, { n: i, tags: [`t${i}`] }, fn, kgOfKey);
        const atSnapshot = readAllCurrent(table, 4);
        const snap = table.snapshot();
        const partial = new Map<number, Array<[Key, Doc]>>();
        for (let kg = 0; kg < 4; kg++) {
          const entries: Array<[Key, Doc]> = [];
          for (const slice of via.slices(snap, kg, 1)) {
            for (const [k, v] of slice) entries.push([k, structuredClone(v)]);
            // Records keep arriving between the slices the writer takes.
            for (let i = 0; i < 10; i++) table.fold(`k-${i}`, { n: 100, tags: ['later'] }, fn, kgOfKey);
          }
          entries.sort((a, b) => String(a[0]).localeCompare(String(b[0])));
          if (entries.length > 0) partial.set(kg, entries);
        }
        snap.release();
        assert.deepEqual(partial, atSnapshot, fn === add ? 'new objects' : 'changed in place');
        table.remove(kgOfKey('k-8'), 'k-8');
        table.remove(kgOfKey('k-9'), 'k-9');
        for (let i = 0; i < 8; i++) table.remove(kgOfKey(`k-${i}`), `k-${i}`);
        assert.equal(table.size, 0);
      }
    });
  });
}

describe('values saved into the writer\'s sink (TableSnapshot.saveTo)', () => {
  const kg = (key: Key): number => Number(String(key).slice(2)) % 4;

  test('an entry the snapshot still needs goes to the sink at its first change, with its key group, once; the writer skips it; a refused value is kept aside for the writer', () => {
    const table = new StateTable<Doc>(4, copyDoc);
    for (let i = 0; i < 12; i++) table.put(kg(`k-${i}`), `k-${i}`, { n: i, tags: [] });
    const snap = table.snapshot();
    const saved: Array<[number, Key, Doc]> = [];
    let refuse = 'k-5';
    snap.saveTo!((g, key, value) => {
      if (key === refuse) return false;
      saved.push([g, key, structuredClone(value as Doc)]);
      return true;
    });
    // A put, a get of a mutable value (changed in place by the caller), a fold in place, a removal, a change twice.
    table.put(kg('k-1'), 'k-1', { n: 100, tags: [] });
    table.put(kg('k-1'), 'k-1', { n: 101, tags: [] });
    const two = table.get(kg('k-2'), 'k-2')!;
    two.tags.push('changed');
    table.fold('k-3', { n: 1, tags: [] }, (a, b) => ((a.n += b.n), a), kg);
    table.remove(kg('k-4'), 'k-4');
    table.put(kg('k-5'), 'k-5', { n: 500, tags: [] });
    refuse = '';
    table.put(kg('k-5'), 'k-5', { n: 501, tags: [] });
    table.put(kg('k-20'), 'k-20', { n: 20, tags: [] });
    assert.deepEqual(saved, [
      [1, 'k-1', { n: 1, tags: [] }],
      [2, 'k-2', { n: 2, tags: [] }],
      [3, 'k-3', { n: 3, tags: [] }],
    ]);
    // An encoded value needs no copy: the reader gets the entry's own object.
    assert.equal(table.get(kg('k-2'), 'k-2'), two);
    const walked = readAll(snap, 4, 5, READERS[1]!.slices);
    const all = [...walked.values()].flat();
    assert.deepEqual(all.map(([k]) => k).sort(), ['k-0', 'k-10', 'k-11', 'k-4', 'k-5', 'k-6', 'k-7', 'k-8', 'k-9']);
    assert.deepEqual(all.find(([k]) => k === 'k-5')![1], { n: 5, tags: [] }, 'refused: the value of the snapshot kept aside');
    assert.deepEqual(all.find(([k]) => k === 'k-4')![1], { n: 4, tags: [] }, 'removed before the writer reached it');
    snap.release();
    // A released snapshot's sink is not called any more, nor is a later snapshot's without saveTo.
    const next = table.snapshot();
    table.put(kg('k-6'), 'k-6', { n: 600, tags: [] });
    assert.equal(saved.length, 3);
    next.release();
  });
});
