// Standby JobManagers on a private 3-node NATS cluster (high-availability.type nats, a 3 s lease):
// the leader takes the submission and writes it, its bundle and each completed checkpoint's pointer
// to the HA stores; SIGKILLed mid-job, the standby takes over within the lease and a few seconds,
// recovers the job from its latest completed checkpoint pointer and runs it on TaskManagers that
// registered with it; the committed output is exactly one run's. (TaskManagers that follow the
// leader by themselves are the next step: here the new ones are started against the new leader.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { spawnWeir, type WeirProcess } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';

const SEED = 7;
const WORDS = 30_000;
const LEASE_MS = 3000;

let root: string;
let nats: NatsCluster;
let cluster: TestCluster;
before(async () => {
  root = makeTempDir('ha-standby');
  nats = await startNatsCluster();
});
after(async () => {
  cluster?.killAll();
  await nats?.stop();
  removeDir(root);
});

const msgOf = (l: Record<string, unknown>) => (typeof l.msg === 'string' ? l.msg : '');
const leading = (p: WeirProcess) => p.log.some((l) => msgOf(l).startsWith('leading (epoch '));
const completedOf = (p: WeirProcess, jobId: string) => p.log.filter((l) => l.jobId === jobId && msgOf(l).startsWith('completed checkpoint ')).length;

test('SIGKILL of the leader JobManager: the standby recovers the job from its latest checkpoint pointer; the output is exactly-once', { timeout: 60_000 }, async () => {
  cluster = new TestCluster({
    root,
    defines: {
      'high-availability.type': 'nats',
      'high-availability.nats.servers': nats.servers,
      'high-availability.cluster-id': 'standby-test',
      'high-availability.nats.lease-duration': `${LEASE_MS} ms`,
      'heartbeat.interval': '1 s',
      'heartbeat.timeout': '5 s',
    },
  });
  const leader = await cluster.startJobManager();
  const leaderAddress = cluster.address;
  await leader.waitFor('leadership', leading, 20_000);
  for (const id of ['tm-a', 'tm-b']) await cluster.startTaskManager({ id });
  const standby = await cluster.startJobManager();
  const standbyAddress = cluster.address;
  assert.ok(!leading(standby), 'one leader');

  const output = join(root, 'out');
  const checkpointDir = join(root, 'checkpoints');
  const args = (m: string) => ['run', WORDCOUNT, '-m', m, '-p', '2', '--checkpoint-dir', checkpointDir, '--', '--words', String(WORDS), '--seed', String(SEED), '--rate', '3000', '--output', output, '--checkpoint-interval', '200'];

  // A standby does not take submissions: it names the leader.
  const refused = spawnWeir(args(standbyAddress), cluster.env);
  assert.notEqual(await refused.finished(30_000), 0);
  assert.match(refused.tail() + refused.stdout, /standby; the leader is at /);

  const run = spawnWeir(args(leaderAddress), cluster.env);
  const jobId = await run.jobId();
  await leader.waitFor('three completed checkpoints', (p) => completedOf(p, jobId) >= 3, 30_000);
  const killedAt = Date.now();
  leader.child.kill('SIGKILL');
  await leader.exited;
  await run.finished(30_000).catch(() => {});

  await standby.waitFor('the standby leads', leading, LEASE_MS + 10_000);
  const tookOverMs = Date.now() - killedAt;
  assert.ok(tookOverMs < LEASE_MS + 5000, `took over after ${tookOverMs} ms`);
  const recovered = standby.log.find((l) => l.jobId === jobId && msgOf(l).startsWith(`recovering job ${jobId} `));
  assert.ok(recovered, `the standby recovered the job:\n${standby.tail()}`);
  assert.match(msgOf(recovered), /from checkpoint \d+: /, 'from its latest completed checkpoint pointer');

  // TaskManagers of the new leader (the old ones lost theirs and cancelled their subtasks).
  for (const p of cluster.processes.filter((p) => p !== leader && p !== standby)) p.kill();
  for (const id of ['tm-c', 'tm-d']) await cluster.startTaskManager({ id });
  await standby.waitFor('the job finished', (p) => p.log.some((l) => l.jobId === jobId && msgOf(l) === `job ${jobId} FINISHED`), 45_000);
  assert.ok(standby.log.some((l) => l.jobId === jobId && msgOf(l).startsWith('restored from checkpoint ')), 'restored');
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
});
