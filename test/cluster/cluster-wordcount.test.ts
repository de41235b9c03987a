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
import { loadFlinkSpec } from '../fixtures/flink/flink-spec.ts';
import { completedOf } from '../fixtures/process-log.ts';

const spec = loadFlinkSpec();

/** GET `path` of the cluster, which must answer 200 with a body valid against Flink's specification (at / and /v1/). */
async function flinkGet(path: string): Promise<any> {
  let body: unknown;
  for (const prefix of ['', '/v1']) {
    const res = await fetch(`http://${cluster.address}${prefix}${path}`);
    assert.equal(res.status, 200, `GET ${prefix}${path}`);
    body = await res.json();
    assert.deepEqual(spec.check('GET', path, 200, body), [], `GET ${path} is not as Flink's specification says: ${JSON.stringify(body).slice(0, 1500)}`);
  }
  return body;
}

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


const wordcountArgs = (output: string, words: number, rate?: number) => ['--', '--words', String(words), '--seed', String(SEED), '--output', output, '--checkpoint-interval', '100', ...(rate ? ['--rate', String(rate)] : [])];

test('a job on two TaskManager processes: records cross over TCP, the output is exactly-once, REST shows the cluster', { timeout: 120_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '5 s' } });
  await cluster.startJobManager();
  await cluster.startTaskManager({ id: 'tm-a' });
  await cluster.startTaskManager({ id: 'tm-b' });
  const overview = (await flinkGet('/overview')) as Record<string, number>;
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
  const tms = (await flinkGet('/taskmanagers')) as { taskmanagers: Array<{ id: string; resourceId: string; host: string; slotsNumber: number; freeSlots: number; dataPort: number; timeSinceLastHeartbeat: number }> };
  assert.deepEqual(tms.taskmanagers.map((t) => [t.resourceId, t.host, t.slotsNumber, t.freeSlots]).sort(), [['tm-a', '127.0.0.1', 1, 1], ['tm-b', '127.0.0.1', 1, 1]]);
  assert.ok(tms.taskmanagers.every((t) => t.dataPort > 0 && t.timeSinceLastHeartbeat > 0));
  const a = tms.taskmanagers.find((t) => t.resourceId === 'tm-a')!;
  const one = (await flinkGet(`/taskmanagers/${a.id}`)) as { resourceId: string; allocatedSlots: unknown[] };
  assert.equal(one.resourceId, 'tm-a');
  assert.equal(((await (await fetch(`http://${cluster.address}/taskmanagers/tm-a`)).json()) as { id: string }).id, a.id, 'found by its resource id too');
  assert.deepEqual(one.allocatedSlots, []);
  assert.equal((await fetch(`http://${cluster.address}/taskmanagers/nobody`)).status, 404);
  const config = (await flinkGet('/jobmanager/config')) as Array<{ key: string; value: string }>;
  assert.equal(config.find((c) => c.key === 'heartbeat.timeout')?.value, '5000');
  assert.ok(!config.some((c) => c.key === 'security.cluster.token' || c.key === 'rest.token'));
  // Without high availability the config says so, and has none of the leader's facts.
  assert.equal(config.find((c) => c.key === 'high-availability.type')?.value, 'none');
  assert.deepEqual(config.filter((c) => c.key.startsWith('high-availability.status.')), []);
  // The dashboard's Task Managers and Job Manager pages are served with it.
  for (const page of ['task-managers', 'job-manager']) assert.equal((await fetch(`http://${cluster.address}/web/pages/${page}.js`)).status, 200);
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
