// sum, min and max on a keyed stream: what they emit (Flink's field aggregation: the first
// record's other fields, the aggregated field updated, a new object per record) and how their
// state behaves under a snapshot that is still being written.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, executeJob, keyGroupFor, ValueStateDescriptor, type DataStream, type Key } from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import { fieldAggregateOf, fieldAggregator, type FieldAggregation } from '../../src/api/field-aggregator.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
import { seededRandom } from '../../src/coordinator/fault-injector.ts';
import { runCollecting, uniqueId } from '../fixtures/helpers.ts';

interface Rec {
  k: string;
  n: number;
  tag: string;
  extra?: boolean;
}

const INPUTS: Rec[] = [
  { k: 'a', n: 4, tag: 'a1' },
  { k: 'a', n: 2, tag: 'a2' },
  { k: 'b', n: 5, tag: 'b1' },
  { k: 'a', n: 9, tag: 'a3', extra: true },
  { k: 'b', n: -1, tag: 'b2' },
];

/** Runs `build` over `inputs` (one source subtask, so per-key order holds) and collects its output. */
async function run<T>(inputs: T[], build: (s: DataStream<T>) => DataStream<T>): Promise<T[]> {
  const id = uniqueId('field-aggregation');
  const job = defineJob((env) => {
    build(env.fromSource(new CollectionSource(inputs), { name: 'Source', uid: 'source', parallelism: 1 })).sinkTo(new CollectSink<T>(id), { name: 'Sink', uid: 'sink' });
  });
  const { result, records } = await runCollecting<T>(id, () => executeJob({ job }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  return records;
}

describe('field aggregations through a job', { timeout: 60_000 }, () => {
  test("sum(field): the first record's other fields, the running sum, whatever later records hold", async () => {
    const got = await run(INPUTS, (s) => s.keyBy((r) => r.k).sum('n', { uid: 'sum' }));
    assert.deepEqual(got, [
      { k: 'a', n: 4, tag: 'a1' },
      { k: 'a', n: 6, tag: 'a1' },
      { k: 'b', n: 5, tag: 'b1' },
      { k: 'a', n: 15, tag: 'a1' },
      { k: 'b', n: 4, tag: 'b1' },
    ]);
  });

  test('min(field) and max(field) keep the first record\'s other fields too', async () => {
    const min = await run(INPUTS, (s) => s.keyBy((r) => r.k).min('n', { uid: 'min' }));
    assert.deepEqual(min.map((r) => [r.k, r.n, r.tag]), [['a', 4, 'a1'], ['a', 2, 'a1'], ['b', 5, 'b1'], ['a', 2, 'a1'], ['b', -1, 'b1']]);
    const max = await run(INPUTS, (s) => s.keyBy((r) => r.k).max('n', { uid: 'max' }));
    assert.deepEqual(max.map((r) => [r.k, r.n, r.tag]), [['a', 4, 'a1'], ['a', 4, 'a1'], ['b', 5, 'b1'], ['a', 9, 'a1'], ['b', 5, 'b1']]);
  });

  test('a first record with the fields in another order or without the field keeps that shape', async () => {
    const inputs = [{ n: 1, k: 'x' }, { k: 'x', n: 2 }, { k: 'y' }, { k: 'y', n: 3 }] as Array<{ k: string; n?: number }>;
    const got = await run(inputs, (s) => s.keyBy((r) => r.k).sum('n' as never, { uid: 'sum' }));
    assert.deepEqual(got.map((r) => Object.keys(r)), [['n', 'k'], ['n', 'k'], ['k'], ['k', 'n']]);
    assert.deepEqual(got, [{ n: 1, k: 'x' }, { n: 3, k: 'x' }, { k: 'y' }, { k: 'y', n: NaN }]);
  });

  test('sum() of numbers, and of bigints', async () => {
    const numbers = await run([1, 2, 3, 4, 5, 6], (s) => s.keyBy((n) => n % 2).sum(undefined, { uid: 'sum' }));
    assert.deepEqual(numbers, [1, 2, 4, 6, 9, 12]);
    const bigints = await run([1n, 2n, 3n], (s) => s.keyBy(() => 'all').sum(undefined, { uid: 'sum' }));
    assert.deepEqual(bigints, [1n, 3n, 6n]);
  });
});

describe('fieldAggregator', () => {
  test('returns a new object and leaves both inputs as they were', () => {
    const sum = fieldAggregator<Rec>('n', 'sum');
    const a = { k: 'a', n: 1, tag: 'first' };
    const b = { k: 'a', n: 2, tag: 'second' };
    const out = sum(a, b);
    assert.deepEqual(out, { k: 'a', n: 3, tag: 'first' });
    assert.notEqual(out, a);
    assert.deepEqual(a, { k: 'a', n: 1, tag: 'first' });
    assert.deepEqual(b, { k: 'a', n: 2, tag: 'second' });
    assert.equal(Object.getPrototypeOf(out), Object.prototype);
  });

  test('follows the shape of each aggregate, alternating between shapes', () => {
    const max = fieldAggregator<Record<string, unknown>>('n', 'max');
    assert.deepEqual(max({ k: 1, n: 1 }, { n: 5 }), { k: 1, n: 5 });
    assert.deepEqual(max({ n: 7, k: 2, z: 0 }, { n: 5 }), { n: 7, k: 2, z: 0 });
    assert.deepEqual(Object.keys(max({ n: 7, k: 2, z: 0 }, { n: 9 })), ['n', 'k', 'z']);
    assert.deepEqual(max({ k: 3, n: 1 }, { n: 0, other: true }), { k: 3, n: 1 });
    assert.deepEqual(max({ k: 4 }, { n: 1 }), { k: 4, n: undefined }, '1 > undefined is false: the missing field stays missing in value');
  });

  test("reads each operand once, and the other fields after the aggregated one, as Flink's aggregators do", () => {
    const reads: string[] = [];
    const tracked = (name: string, fields: Record<string, number>) =>
      Object.defineProperties({}, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { enumerable: true, get: () => (reads.push(`${name}.${k}`), v) }])));
    const min = fieldAggregator<object>('n', 'min');
    assert.deepEqual(min(tracked('a', { k: 1, n: 5 }), tracked('b', { n: 3 })), { k: 1, n: 3 });
    assert.deepEqual(reads, ['a.n', 'b.n', 'a.k']);
  });
});

describe('sum state under a snapshot in flight', () => {
  test('the snapshot holds the sums as of the snapshot while records keep being folded, and emitted records never change', () => {
    const backend = new HeapKeyedStateBackend({ start: 0, end: 127 }, 128, 'sum', () => 'the test backend');
    const fold = backend.valueFolder(new ValueStateDescriptor<Rec>('_reduce'), fieldAggregator<Rec>('n', 'sum'));
    const keys = Array.from({ length: 40 }, (_, i) => `w${i}`);
    const emitted: Array<{ record: Rec; copy: Rec }> = [];
    const feed = (round: number) => {
      for (const k of keys) {
        const record = fold(k, { k, n: round, tag: `r${round}` });
        emitted.push({ record, copy: structuredClone(record) });
      }
    };
    feed(1);
    feed(2);
    const captured = backend.snapshot();
    const [table] = captured.tables;
    const seen = new Map<Key, Rec>();
    for (let kg = 0; kg < 128; kg++) {
      for (const slice of table!.snapshot.keyGroupSlices(kg, 3)) {
        for (const [k, v] of slice) seen.set(k, structuredClone(v as Rec));
        // The task goes on between the slices the writer takes.
        feed(10 + kg);
      }
    }
    table!.snapshot.release();
    assert.equal(seen.size, keys.length);
    for (const k of keys) {
      assert.deepEqual(seen.get(k), { k, n: 3, tag: 'r1' }, `key ${k} (key group ${keyGroupFor(k, 128)})`);
    }
    for (const { record, copy } of emitted) assert.deepEqual(record, copy, 'an emitted aggregate is never changed afterwards');
    backend.close();
  });
});

/** Every entry a backend's snapshot holds, by key, as plain data; the snapshot is released. */
function snapshotContents(backend: HeapKeyedStateBackend): Map<Key, unknown> {
  const captured = backend.snapshot();
  const out = new Map<Key, unknown>();
  for (const { snapshot } of captured.tables) {
    for (let kg = 0; kg < 128; kg++) for (const frame of snapshot.keyGroupFrames(kg, 7, [kg])) for (let i = 1; i < frame.length; i += 2) out.set(frame[i] as Key, structuredClone(frame[i + 1]));
    snapshot.release();
  }
  return out;
}

describe('field aggregates kept in place', () => {
  const backend = () => new HeapKeyedStateBackend({ start: 0, end: 127 }, 128, 'sum', () => 'the test backend');
  const descriptor = () => new ValueStateDescriptor<Record<string, unknown>>('_reduce');

  test('emit, snapshot and restore exactly what the reduce function would, over random records, shapes and snapshots', () => {
    for (const aggregation of ['sum', 'min', 'max'] as FieldAggregation[]) {
      const fn = fieldAggregator<Record<string, unknown>>('n', aggregation);
      const form = fieldAggregateOf(fn)!;
      assert.ok(form, 'a field aggregator has an in-place form');
      let reduce = backend();
      let inPlace = backend();
      let foldReduce = reduce.valueFolder(descriptor(), fn);
      let foldInPlace = inPlace.inPlaceFolder(descriptor(), form);
      const rnd = seededRandom(aggregation.length * 31);
      const shapes = [
        (k: string, n: number) => ({ k, n, tag: `t${n}` }),
        (k: string, n: number) => ({ n, k }),
        (k: string) => ({ k, tag: 'no n' }),
        (k: string, n: number) => ({ k, n, tag: 'more', extra: [n] }),
      ];
      for (let step = 0; step < 3000; step++) {
        const k = `k${Math.floor(rnd() * 25)}`;
        // Mostly one shape, as real streams are; now and then another.
        const shape = rnd() < 0.85 ? shapes[0]! : shapes[Math.floor(rnd() * shapes.length)]!;
        const record = shape(k, Math.floor(rnd() * 100) - 50);
        const expected = foldReduce(k, structuredClone(record));
        const got = foldInPlace(k, record);
        assert.deepEqual(got, expected, `${aggregation}, step ${step}, key ${k}`);
        if (step % 250 === 249) {
          const stored = snapshotContents(reduce);
          assert.deepEqual(snapshotContents(inPlace), stored, `${aggregation}: snapshots agree at step ${step}`);
          if (step % 500 === 499) {
            // A restore: both start over from what the snapshot holds.
            reduce = backend();
            inPlace = backend();
            for (const b of [reduce, inPlace]) {
              for (const [key, value] of stored) b.restoreEntries({ name: '_reduce', kind: 'value', serializer: 'msgpack', version: 1 }, keyGroupFor(key, 128), [[key, structuredClone(value)]]);
            }
            foldReduce = reduce.valueFolder(descriptor(), fn);
            foldInPlace = inPlace.inPlaceFolder(descriptor(), form);
          }
        }
      }
    }
  });

  test('a snapshot in flight holds the aggregates as of the snapshot; emitted records never change; keys added later are not in it', () => {
    const b = backend();
    const fold = b.inPlaceFolder(descriptor(), fieldAggregateOf(fieldAggregator<Record<string, unknown>>('n', 'sum'))!);
    const emitted: Array<{ record: unknown; copy: unknown }> = [];
    const feed = (keys: string[], n: number) => {
      for (const k of keys) {
        const record = fold(k, { k, n, tag: `r${n}` });
        emitted.push({ record, copy: structuredClone(record) });
        latest.set(k, structuredClone(record));
      }
    };
    // The latest record emitted for a key is its aggregate.
    const latest = new Map<Key, unknown>();
    let atSecond = new Map<Key, unknown>();
    const twice = Array.from({ length: 30 }, (_, i) => `twice-${i}`);
    const once = Array.from({ length: 10 }, (_, i) => `once-${i}`);
    feed(twice, 1);
    feed(twice, 2);
    feed(once, 5);
    const captured = b.snapshot();
    const [table] = captured.tables;
    const seen = new Map<Key, unknown>();
    let second: ReturnType<HeapKeyedStateBackend['snapshot']> | undefined;
    const lateKeys: string[] = [];
    for (let kg = 0; kg < 128; kg++) {
      // Halfway, a second snapshot while the first is still being written (copied eagerly).
      if (kg === 64) {
        second = b.snapshot();
        atSecond = new Map(latest);
      }
      for (const slice of table!.snapshot.keyGroupSlices(kg, 2)) {
        for (const [k, v] of slice) seen.set(k, structuredClone(v));
        // Records go on between the writer's slices, for old keys and new ones.
        feed([...twice, ...once], 100 + kg);
        if (!lateKeys.includes(`late-${kg}`)) lateKeys.push(`late-${kg}`);
        feed([`late-${kg}`], 1);
      }
    }
    table!.snapshot.release();
    const sorted = (entries: Iterable<readonly [Key, unknown]>) => [...entries].sort(([x], [y]) => String(x).localeCompare(String(y)));
    const expected: Array<[Key, unknown]> = [...twice.map((k): [Key, unknown] => [k, { k, n: 3, tag: 'r1' }]), ...once.map((k): [Key, unknown] => [k, { k, n: 5, tag: 'r5' }])];
    assert.deepEqual(sorted(seen), sorted(expected));
    const secondSeen = new Map<Key, unknown>();
    const [secondTable] = second!.tables;
    for (let kg = 0; kg < 128; kg++) for (const slice of secondTable!.snapshot.keyGroupSlices(kg, 5)) for (const [k, v] of slice) secondSeen.set(k, structuredClone(v));
    secondTable!.snapshot.release();
    assert.deepEqual(sorted(secondSeen), sorted(atSecond), 'the second snapshot holds the aggregates as of its own time');
    assert.ok([...secondSeen.keys()].some((k) => String(k).startsWith('late-')), 'with keys added after the first snapshot');
    assert.equal(snapshotContents(b).size, twice.length + once.length + lateKeys.length);
    for (const { record, copy } of emitted) assert.deepEqual(record, copy, 'an emitted aggregate is never changed afterwards');
  });
});
