// DataGen.sequence(from, to) includes `to`, as Flink's fromSequence(from, to): 1..10 is ten numbers,
// (5, 5) one, and an end below the start none; split over lanes, each number once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob, executeJob } from '../../../src/index.ts';
import { CollectSink } from '../../../src/connectors/collect/index.ts';
import { DataGen } from '../../../src/connectors/datagen/index.ts';
import { runCollecting, uniqueId } from '../../fixtures/helpers.ts';

async function sequence(from: number, to: number, parallelism: number): Promise<number[]> {
  const id = uniqueId('sequence');
  const job = defineJob((env) => {
    env.setParallelism(parallelism);
    env.fromSource(DataGen.sequence(from, to), { uid: 'numbers' }).sinkTo(new CollectSink<number>(id), { uid: 'sink' });
  });
  const { result, records } = await runCollecting<number>(id, () => executeJob({ job }));
  assert.equal(result.status, 'FINISHED', result.error?.message);
  return records.sort((a, b) => a - b);
}

describe('DataGen.sequence', { timeout: 60_000 }, () => {
  test('from and to are both included', async () => {
    assert.deepEqual(await sequence(1, 10, 1), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.deepEqual(await sequence(-2, 2, 1), [-2, -1, 0, 1, 2]);
  });

  test('to equal to from is that one number; to below from is none', async () => {
    assert.deepEqual(await sequence(5, 5, 1), [5]);
    assert.deepEqual(await sequence(5, 4, 1), []);
  });

  test('over three lanes, every number from 0 to 1000 once', async () => {
    assert.deepEqual(await sequence(0, 1000, 3), Array.from({ length: 1001 }, (_, i) => i));
  });
});
