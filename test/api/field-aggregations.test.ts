// sum, min and max on a keyed stream: what they emit (Flink's field aggregation: the first
// record's other fields, the aggregated field updated, a new object per record) and how their
// state behaves under a snapshot that is still being written.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, executeJob, keyGroupFor, ValueStateDescriptor, type DataStream, type Key } from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import { fieldAggregator } from '../../src/api/field-aggregator.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
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
    backend.dispose();
  });
});
