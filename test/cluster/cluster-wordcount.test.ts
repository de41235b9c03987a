// A cluster of processes on loopback: a JobManager, TaskManager processes, `weir run -m`. The word
// count's records cross between processes over TCP; a TaskManager SIGKILLed mid-run fails its
// subtasks, the job restarts from the latest checkpoint on the slots left (a spare TaskManager's),
// and the committed output is exactly what one run without failures commits.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';
import { slotsOf, TestCluster } from '../fixtures/weir-cluster.ts';

const SEED = 11;

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('cluster');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});

const completedOf = (p: { log: Array<Record<string, unknown>> }, jobId: string) => p.log.filter((l) => l.jobId === jobId && typeof l.msg === 'string' && l.msg.startsWith('completed checkpoint ')).length;

const wordcountArgs = (output: string, words: number, rate?: number) => ['--', '--words', String(words), '--seed', String(SEED), '--output', output, '--checkpoint-interval', '100', ...(rate ? ['--rate', String(rate)] : [])];

test('a job on two TaskManager processes: records cross over TCP, the output is exactly-once, REST shows the cluster', { timeout: 120_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '5 s' } });
  await cluster.startJobManager();
  await cluster.startTaskManager({ id: 'tm-a' });
  await cluster.startTaskManager({ id: 'tm-b' });
  const overview = (await (await fetch(`http://${cluster.address}/overview`)).json()) as Record<string, number>;
  assert.equal(overview.taskmanagers, 2);
  assert.equal(overview['slots-total'], 2);
  assert.equal(overview['slots-available'], 2);

  const output = join(root, 'out-1');
  const words = 40_000;
  const run = spawnWeir(['run', WORDCOUNT, '-m', cluster.address, '-p', '2', '--checkpoint-dir', join(root, 'checkpoints'), ...wordcountArgs(output, words)], cluster.env);
  assert.equal(await run.finished(90_000), 0, run.tail());
  const jobId = await run.jobId();
  assert.match(run.lines.join('\n'), new RegExp(`Job ${jobId} FINISHED in `));
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, words))), undefined);
  assert.deepEqual([...slotsOf(cluster.jobManager!, jobId).values()].sort(), ['tm-a', 'tm-b'], 'one slot on each process');

  // The finished job stays readable.
  const details = (await (await fetch(`http://${cluster.address}/jobs/${jobId}`)).json()) as { state: string };
  assert.equal(details.state, 'FINISHED');
  const tms = (await (await fetch(`http://${cluster.address}/taskmanagers`)).json()) as { taskmanagers: Array<{ id: string; slotsNumber: number; freeSlots: number; dataPort: number }> };
  assert.deepEqual(tms.taskmanagers.map((t) => [t.id, t.slotsNumber, t.freeSlots]).sort(), [['tm-a', 1, 1], ['tm-b', 1, 1]]);
});

test('SIGKILL of a TaskManager process: its subtasks fail, the job restarts from the latest checkpoint on a spare slot, exactly-once', { timeout: 150_000 }, async () => {
  await cluster.startTaskManager({ id: 'tm-c' });
  const output = join(root, 'out-2');
  const words = 30_000;
  const run = spawnWeir(['run', WORDCOUNT, '-m', cluster.address, '-p', '2', '--checkpoint-dir', join(root, 'checkpoints'), ...wordcountArgs(output, words, 6_000)], cluster.env);
  const jobId = await run.jobId();
  const jm = cluster.jobManager!;
  await jm.waitFor('three completed checkpoints of the job', (p) => completedOf(p, jobId) >= 3, 60_000);
  const used = slotsOf(jm, jobId);
  // While it runs: records cross between the processes as bytes, and each subtask's host is its process's.
  // (Subtasks report their figures every 500 ms.)
  type Details = { vertices: Array<{ id: string; subtasks: Array<{ 'write-bytes': number }> }> };
  let source: Details['vertices'][number];
  for (let i = 0; ; i++) {
    source = ((await (await fetch(`http://${cluster.address}/jobs/${jobId}`)).json()) as Details).vertices[0]!;
    if (source.subtasks.every((s) => s['write-bytes'] > 0)) break;
    assert.ok(i < 100, `the source's subtasks wrote no bytes: ${JSON.stringify(source.subtasks)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const vertex = (await (await fetch(`http://${cluster.address}/jobs/${jobId}/vertices/${source.id}`)).json()) as { subtasks: Array<{ host: string }> };
  assert.deepEqual(vertex.subtasks.map((s) => s.host), ['127.0.0.1', '127.0.0.1']);
  const victimId = used.get(1)!;
  const victim = cluster.processes.find((p) => p.child.spawnargs.includes(victimId))!;
  victim.child.kill('SIGKILL');
  assert.equal((await victim.exited).signal, 'SIGKILL');
  assert.equal(await run.finished(120_000), 0, `${run.tail()}\n--- JobManager:\n${jm.tail()}`);
  const restored = jm.log.find((l) => l.jobId === jobId && typeof l.msg === 'string' && l.msg.startsWith('restored from checkpoint '));
  assert.ok(restored, 'the job restored a checkpoint');
  const lost = jm.log.find((l) => l.jobId === jobId && typeof l.msg === 'string' && l.msg.startsWith('restarting (attempt 1)'));
  assert.match(String(lost?.msg), new RegExp(`${victimId}`), 'the restart names the lost TaskManager');
  const after = slotsOf(jm, jobId);
  assert.notEqual(after.get(1), victimId, 'the lost slot was replaced on another TaskManager');
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, words))), undefined);
});
