// The JobManager process SIGKILLed while its job runs and its TaskManagers live: the TaskManagers
// lose it, cancel their subtasks (nothing of the job runs on without a JobManager) and register
// with the new JobManager started on the same address; the job, submitted again from its latest
// retained checkpoint (`weir run -m ... -s chk-N`), commits exactly what one run without failures
// commits. (High availability without that manual step is the next issue.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { completeCheckpoints, diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { completedOf } from '../fixtures/process-log.ts';

const SEED = 5;
const WORDS = 40_000;

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('jm-failure');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});


test('SIGKILL of the JobManager: TaskManagers cancel, register with a new one; the job resubmitted from its latest checkpoint is exactly-once', { timeout: 180_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '5 s' } });
  const first = await cluster.startJobManager();
  const port = Number(cluster.address.split(':')[1]);
  const tmA = await cluster.startTaskManager({ id: 'tm-a' });
  const tmB = await cluster.startTaskManager({ id: 'tm-b' });
  const output = join(root, 'out');
  const checkpointDir = join(root, 'checkpoints');
  const args = (from?: string) => ['run', WORDCOUNT, '-m', cluster.address, '-p', '2', '--checkpoint-dir', checkpointDir, ...(from ? ['-s', from] : []), '--', '--words', String(WORDS), '--seed', String(SEED), '--rate', '5000', '--output', output, '--checkpoint-interval', '100'];
  const run = spawnWeir(args(), cluster.env);
  const jobId = await run.jobId();
  await first.waitFor('three completed checkpoints', (p) => completedOf(p, jobId) >= 3, 60_000);
  first.child.kill('SIGKILL');
  assert.equal((await first.exited).signal, 'SIGKILL');
  // The client following the job cannot reach the JobManager any more.
  assert.notEqual(await run.finished(60_000), 0);

  for (const tm of [tmA, tmB]) await tm.waitFor('the lost JobManager', (p) => p.log.some((l) => typeof l.msg === 'string' && l.msg.startsWith('lost the JobManager at ')), 30_000);
  const second = await cluster.startJobManager('127.0.0.1', {}, port);
  for (const id of ['tm-a', 'tm-b']) await second.waitFor(`${id} registered again`, (p) => p.log.some((l) => typeof l.msg === 'string' && l.msg.startsWith(`TaskManager ${id} registered from `)), 30_000);

  const latest = completeCheckpoints(join(checkpointDir, jobId))[0];
  assert.ok(latest, 'the killed JobManager left a completed checkpoint');
  const resumed = spawnWeir(args(latest.dir), cluster.env);
  assert.equal(await resumed.finished(120_000), 0, `${resumed.tail()}\n--- JobManager:\n${second.tail()}`);
  const newJob = await resumed.jobId();
  assert.ok(second.log.some((l) => l.jobId === newJob && l.msg === `restored from checkpoint ${latest.id}: ${latest.dir}`), 'the new job restored the checkpoint');
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
});
