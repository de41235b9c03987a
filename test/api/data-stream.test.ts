// How records move between operators: union, rebalance, broadcast (and forward and the default
// partitioning), checked by which sink subtask received each record.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { defineJob, executeJob, type JobResult } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import partitioningJob, { unionInputs } from '../fixtures/jobs/partitioning.ts';
import { runCollecting, TaggingCollectSink, uniqueId, type Tagged } from '../fixtures/helpers.ts';

const PARTITIONING = fileURLToPath(new URL('../fixtures/jobs/partitioning.ts', import.meta.url));
const N = 3000;

async function runMode<T>(mode: string, taskManagers: number): Promise<Tagged<T>[]> {
  const id = uniqueId(mode);
  const { result, records } = await runCollecting<Tagged<T>>(id, () =>
    executeJob({ job: taskManagers > 0 ? PARTITIONING : partitioningJob, args: ['--mode', mode, '--collect-id', id, '--n', String(N)], taskManagers }),
  );
  assert.equal(result.status, 'FINISHED', result.error?.message);
  return records;
}

const sorted = <T>(xs: T[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
const ascending = (xs: number[]) => [...xs].sort((a, b) => a - b);

function perSubtask<T>(records: Tagged<T>[], parallelism: number): T[][] {
  const out = Array.from({ length: parallelism }, () => [] as T[]);
  for (const r of records) {
    assert.equal(r.parallelism, parallelism);
    out[r.subtask]!.push(r.value);
  }
  return out;
}

for (const taskManagers of [0, 2]) {
  const where = taskManagers === 0 ? 'in this thread' : `on ${taskManagers} worker TaskManagers`;

  describe(`partitioning ${where}`, { timeout: 60_000 }, () => {
    test('union: every record of every input arrives once', async () => {
      const records = await runMode<string>('union', taskManagers);
      const { a, b, c } = unionInputs(N);
      const expected = [...a, ...b, ...c.map((s) => s.toUpperCase())].map((s) => `<${s}>`);
      assert.deepEqual(sorted(records.map((r) => r.value)), sorted(expected));
      // Both sink subtasks took part (the union's output is spread, not funneled).
      assert.ok(perSubtask(records, 2).every((xs) => xs.length > 0));
    });

    test('rebalance: a skewed stream is spread evenly over all subtasks, nothing lost', async () => {
      const records = await runMode<number>('rebalance', taskManagers);
      const expected = Array.from({ length: N }, (_, i) => i).filter((i) => i % 3 === 0);
      assert.deepEqual(ascending(records.map((r) => r.value)), expected);
      const counts = perSubtask(records, 3).map((xs) => xs.length);
      const fair = expected.length / 3;
      // One producer deals round-robin: the shares differ by at most one record.
      assert.ok(counts.every((c) => Math.abs(c - fair) <= 1), `shares ${counts}, fair ${fair}`);
    });

    test('broadcast: every subtask receives every record exactly once', async () => {
      const records = await runMode<number>('broadcast', taskManagers);
      const all = Array.from({ length: N }, (_, i) => i);
      const shares = perSubtask(records, 3);
      shares.forEach((xs, s) => assert.deepEqual(ascending(xs), all, `sink subtask ${s}`));
    });
  });
}

describe('forward and default partitioning', { timeout: 60_000 }, () => {
  async function tagged(build: (sink: TaggingCollectSink<number>) => ReturnType<typeof defineJob>, id: string): Promise<{ result: JobResult; records: Tagged<number>[] }> {
    return runCollecting<Tagged<number>>(id, () => executeJob({ job: build(new TaggingCollectSink<number>(id)) }));
  }

  test('equal parallelism: subtask i feeds subtask i (forward)', async () => {
    const id = uniqueId('forward');
    const { result, records } = await tagged(
      (sink) =>
        defineJob((env) => {
          env.setParallelism(3);
          env.fromSource(DataGen.sequence(0, 899), { uid: 'src' }).map((x) => x * 10).sinkTo(sink, { uid: 'sink' });
        }),
      id,
    );
    assert.equal(result.status, 'FINISHED', result.error?.message);
    // Sequence position i is read by source subtask i mod 3.
    perSubtask(records, 3).forEach((xs, s) => {
      assert.deepEqual(ascending(xs), Array.from({ length: 300 }, (_, k) => (3 * k + s) * 10), `subtask ${s}`);
    });
  });

  test('a parallelism change without a partitioner rebalances', async () => {
    const id = uniqueId('default');
    const { result, records } = await tagged(
      (sink) =>
        defineJob((env) => {
          env.fromSource(DataGen.sequence(0, 1199), { uid: 'src', parallelism: 1 }).sinkTo(sink, { uid: 'sink', parallelism: 4 });
        }),
      id,
    );
    assert.equal(result.status, 'FINISHED', result.error?.message);
    assert.deepEqual(ascending(records.map((r) => r.value)), Array.from({ length: 1200 }, (_, i) => i));
    assert.deepEqual(perSubtask(records, 4).map((xs) => xs.length), [300, 300, 300, 300]);
  });
});
