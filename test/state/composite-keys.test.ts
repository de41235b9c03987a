// Composite keys (keyBy(r => [r.a, r.b])) aggregate by value, as Flink's tuple keys do: two
// records with equal parts share one entry, parts of different types do not. (Tables held them
// by array identity before: every record started a fresh entry.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defineJob, executeJob } from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import { HeapKeyedStateBackend } from '../../src/state/heap-keyed-state-backend.ts';
import { ValueStateDescriptor } from '../../src/api/state-descriptors.ts';
import { stateKey } from '../../src/state/state-key.ts';
import { runCollecting, uniqueId } from '../fixtures/helpers.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';

test('the table key of a composite key is equal exactly when the parts are', () => {
  assert.equal(stateKey(['a', 1]), stateKey(['a', 1]));
  assert.notEqual(stateKey([1]), stateKey(['1']));
  assert.notEqual(stateKey(['a,b']), stateKey(['a', 'b']));
  assert.notEqual(stateKey([1n]), stateKey([1]));
  assert.notEqual(stateKey([null]), stateKey([undefined]));
  assert.notEqual(stateKey([['a'], 'b']), stateKey(['a', ['b']]));
  assert.equal(stateKey('plain'), 'plain');
  assert.equal(stateKey(7), 7);
});

test('keyed value state reached by equal composite keys is one entry, and the key the function sees is the array', () => {
  const backend = new HeapKeyedStateBackend({ start: 0, end: 127 }, 128, 'uid', () => 'test');
  const count = backend.getValueState(new ValueStateDescriptor<number>('count', { defaultValue: 0 }));
  for (const k of [['x', 1], ['x', 1], ['x', 2], ['x', 1]] as const) {
    backend.setCurrentKey([...k]);
    count.update(count.value()! + 1);
  }
  backend.setCurrentKey(['x', 1]);
  assert.equal(count.value(), 3);
  assert.deepEqual(backend.currentKey, ['x', 1]);
});

test('sum over a composite key aggregates by value in a job', async () => {
  const id = uniqueId('composite');
  const records = [
    { a: 'x', b: 1, n: 1 },
    { a: 'x', b: 1, n: 2 },
    { a: 'x', b: 2, n: 4 },
    { a: 'x', b: 1, n: 8 },
  ];
  const job = defineJob((env) => {
    env
      .fromSource(new CollectionSource(records), { parallelism: 1 })
      .keyBy((r) => [r.a, r.b])
      .sum('n', { parallelism: 1 })
      .sinkTo(new CollectSink<{ a: string; b: number; n: number }>(id), { parallelism: 1 });
  });
  const { result, records: got } = await runCollecting<{ a: string; b: number; n: number }>(id, () => executeJob({ job }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  assert.deepEqual(got.map((r) => r.n), [1, 3, 4, 11]);
});
