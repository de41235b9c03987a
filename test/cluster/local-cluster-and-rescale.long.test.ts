// `weir run --task-managers N --processes`: a cluster in one command, on loopback; and a savepoint
// of a job on three TaskManager processes restored on two, at another parallelism, over processes
// (`weir stop --savepoint -m`, then `weir run -m -s`): the committed output is exactly-once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { readWordCountSavepoint, wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { spawnWeir, weir } from '../fixtures/weir-process.ts';
import { slotsOf, TestCluster } from '../fixtures/weir-cluster.ts';

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('local-cluster');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});

test('weir run --task-managers 2 --processes: a JobManager here, two TaskManager processes, exactly-once, nothing left running', { timeout: 120_000 }, async () => {
  const output = join(root, 'local-out');
  const run = spawnWeir(['run', WORDCOUNT, '-p', '2', '--task-managers', '2', '--processes', '-D', 'rest.port=0', '--', '--words', '30000', '--seed', '8', '--output', output, '--checkpoint-interval', '100'], { ...process.env, TMPDIR: root });
  assert.equal(await run.finished(90_000), 0, run.tail());
  const log = run.log.map((l) => String(l.msg));
  assert.ok(log.some((m) => m.startsWith('TaskManager local-1 registered from 127.0.0.1:')), log.join('\n'));
  assert.ok(log.some((m) => m.startsWith('TaskManager local-2 registered from 127.0.0.1:')));
  assert.ok(log.some((m) => /^slots for TaskManagers 0, 1: slot 0 of TaskManager local-\d .*; slot 0 of TaskManager local-\d /.test(m)), 'one slot on each process');
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(8, 30_000))), undefined);
});

test('a savepoint taken on three TaskManager processes, restored at parallelism 2 on two: exactly-once', { timeout: 180_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '5 s' } });
  const jm = await cluster.startJobManager();
  for (const id of ['tm-a', 'tm-b', 'tm-c']) await cluster.startTaskManager({ id });
  // 13 s of input at 3000 words a second: the stop must come mid-input even when the machine is
  // loaded and the first checkpoint is late (an input already ended leaves nothing to stop).
  const words = 40_000;
  const output = join(root, 'rescale-out');
  const args = (p: number, from?: string) => ['run', WORDCOUNT, '-m', cluster.address, '-p', String(p), ...(from ? ['-s', from] : []), '--', '--words', String(words), '--seed', '9', '--rate', '3000', '--output', output, '--checkpoint-interval', '200'];
  const first = spawnWeir(args(3), cluster.env);
  const jobId = await first.jobId();
  await jm.waitFor('a completed checkpoint', (p) => p.log.some((l) => l.jobId === jobId && typeof l.msg === 'string' && l.msg.startsWith('completed checkpoint ')), 60_000);
  assert.deepEqual([...slotsOf(jm, jobId).values()].sort(), ['tm-a', 'tm-b', 'tm-c']);
  const stop = await weir(['stop', jobId, '-m', cluster.address, '--savepoint', join(root, 'savepoints')], cluster.env);
  assert.equal(stop.code, 0, stop.stderr);
  const savepoint = /Savepoint completed\. Path: (\S+)/.exec(stop.stdout)![1]!;
  assert.equal(await first.finished(30_000), 0, first.tail());
  const sp = await readWordCountSavepoint(savepoint);
  assert.equal(sp.parallelism, 3);

  // Two TaskManagers now: the third is stopped.
  const third = cluster.processes.find((p) => p.child.spawnargs.includes('tm-c'))!;
  third.child.kill('SIGTERM');
  assert.equal(await third.finished(20_000), 0, 'a TaskManager ends on SIGTERM');
  const second = spawnWeir(args(2, savepoint), cluster.env);
  assert.equal(await second.finished(120_000), 0, `${second.tail()}\n--- JobManager:\n${jm.tail()}`);
  const secondId = await second.jobId();
  assert.deepEqual([...slotsOf(jm, secondId).values()].sort(), ['tm-a', 'tm-b']);
  assert.ok(jm.log.some((l) => l.jobId === secondId && typeof l.msg === 'string' && l.msg.startsWith(`restored from savepoint ${sp.checkpointId}: `)));
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(9, words))), undefined);
});
