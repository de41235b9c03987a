// Two-input operators on TaskManager processes: a JobManager and two `weir taskmanager` processes
// on loopback, each input's records (with their timestamps) and watermarks crossing between
// processes over TCP. The keyed connect join, the interval join and the window join commit exactly
// the output of the independent (nested-loop) computation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { diffSortedLines, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { expectedIntervalJoin, expectedWindowJoin } from '../fixtures/join-data.ts';
import { expectedJoin } from '../fixtures/two-input-data.ts';

const JOINS = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'joins.ts');
const TWO_INPUTS = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'two-inputs.ts');
const COUNT = 3000;

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('two-inputs-on-processes');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});

test('keyed connect, interval and window joins on two TaskManager processes equal the independent computation', { timeout: 180_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '10 s' } });
  await cluster.startJobManager();
  await cluster.startTaskManager({ id: 'tm-a', slots: 2 });
  await cluster.startTaskManager({ id: 'tm-b', slots: 2 });
  const runs = [
    { name: 'connect', job: TWO_INPUTS, args: ['--kind', 'join'], expected: expectedJoin(COUNT), p: 3 },
    { name: 'interval', job: JOINS, args: ['--kind', 'interval'], expected: expectedIntervalJoin(COUNT), p: 2 },
    { name: 'window', job: JOINS, args: ['--kind', 'window'], expected: expectedWindowJoin(COUNT), p: 3 },
  ];
  for (const r of runs) {
    const output = join(root, `out-${r.name}`);
    const run = spawnWeir(
      ['run', r.job, '-m', cluster.address, '-p', String(r.p), '--checkpoint-dir', join(root, `checkpoints-${r.name}`), '--', ...r.args, '--count', String(COUNT), '--output', output, '--checkpoint-interval', '200', '--rate', '6000'],
      cluster.env,
    );
    assert.equal(await run.finished(90_000), 0, run.tail());
    const diff = diffSortedLines(readCommittedLines(output), r.expected);
    assert.equal(diff, undefined, `${r.name} at p${r.p} on processes: ${diff}`);
  }
});
