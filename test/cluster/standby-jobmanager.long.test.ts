// Standby JobManagers on a private 3-node NATS cluster (high-availability.type nats, a 3 s lease):
// the leader takes the submission and writes it, its bundle and each completed checkpoint's pointer
// to the HA stores; SIGKILLed mid-job, the standby takes over within the lease and a few seconds,
// recovers the job from its latest completed checkpoint pointer and runs it on TaskManagers that
// registered with it; the committed output is exactly one run's. First with new TaskManagers
// started against the new leader, then with TaskManagers that have no --jobmanager and follow the
// leader through NATS by themselves, with checkpoints on the NATS object store.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { mkdirSync } from 'node:fs';
import { spawnWeir, weir, type WeirProcess } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { msgOf, leading, completedOf, registeredOn } from '../fixtures/process-log.ts';

const SEED = 7;
const WORDS = 30_000;
const LEASE_MS = 3000;

let root: string;
let nats: NatsCluster;
let cluster: TestCluster;
const clusters: TestCluster[] = [];
before(async () => {
  root = makeTempDir('ha-standby');
  nats = await startNatsCluster();
});
after(async () => {
  for (const c of clusters) c.killAll();
  await nats?.stop();
  removeDir(root);
});


function haCluster(clusterId: string, dir: string): TestCluster {
  const c = new TestCluster({
    root: join(root, dir),
    defines: {
      'high-availability.type': 'nats',
      'high-availability.nats.servers': nats.servers,
      'high-availability.cluster-id': clusterId,
      'high-availability.nats.lease-duration': `${LEASE_MS} ms`,
      'heartbeat.interval': '1 s',
      'heartbeat.timeout': '5 s',
    },
  });
  clusters.push(c);
  return c;
}

const wordCountArgs = (dir: string, m: string, checkpoints = join(dir, 'checkpoints')) => ['run', WORDCOUNT, '-m', m, '-p', '2', '--checkpoint-dir', checkpoints, '--', '--words', String(WORDS), '--seed', String(SEED), '--rate', '3000', '--output', join(dir, 'out'), '--checkpoint-interval', '200'];

test('SIGKILL of the leader JobManager: the standby recovers the job from its latest checkpoint pointer; the output is exactly-once', { timeout: 60_000 }, async () => {
  cluster = haCluster('standby-given-address', 'given');
  const leader = await cluster.startJobManager();
  const leaderAddress = cluster.address;
  await leader.waitFor('leadership', leading, 20_000);
  for (const id of ['tm-a', 'tm-b']) await cluster.startTaskManager({ id });
  const standby = await cluster.startJobManager();
  const standbyAddress = cluster.address;
  assert.ok(!leading(standby), 'one leader');

  const output = join(cluster.o.root, 'out');
  const args = (m: string) => wordCountArgs(cluster.o.root, m);

  // A standby's REST API answers for the leader: the submission through it runs on the leader.
  const run = spawnWeir(args(standbyAddress), cluster.env);
  const jobId = await run.jobId();
  await leader.waitFor('three completed checkpoints', (p) => completedOf(p, jobId) >= 3, 30_000);
  assert.equal(completedOf(standby, jobId), 0, 'the standby runs nothing');
  const overview = await fetch(`http://${standbyAddress}/overview`);
  const view = (await overview.json()) as Record<string, unknown>;
  assert.equal(view['ha-role'], 'leading', 'the leader answered');
  assert.equal(view['ha-leader'], `http://${leaderAddress}`);
  assert.equal(typeof view['ha-leader-epoch'], 'number');
  assert.equal(overview.headers.get('x-weir-leader'), `http://${leaderAddress}`);
  // /jobmanager/config has the same facts under its high-availability.status keys, the settings beside them.
  const configOf = async (address: string) => {
    const res = await fetch(`http://${address}/jobmanager/config`);
    return { leader: res.headers.get('x-weir-leader'), config: new Map(((await res.json()) as Array<{ key: string; value: string }>).map((c) => [c.key, c.value])) };
  };
  for (const address of [leaderAddress, standbyAddress]) {
    const { leader: forwardedTo, config } = await configOf(address);
    assert.equal(forwardedTo, address === standbyAddress ? `http://${leaderAddress}` : null, 'only the standby forwards');
    assert.equal(config.get('high-availability.type'), 'nats');
    assert.equal(config.get('high-availability.cluster-id'), 'standby-given-address');
    assert.equal(config.get('high-availability.status.role'), 'leading');
    assert.equal(config.get('high-availability.status.leader-address'), `http://${leaderAddress}`);
    assert.equal(config.get('high-availability.status.leader-epoch'), String(view['ha-leader-epoch']));
  }
  const listed = await weir(['list', '-m', standbyAddress], cluster.env);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, new RegExp(jobId));
  const killedAt = Date.now();
  leader.child.kill('SIGKILL');
  await leader.exited;

  await standby.waitFor('the standby leads', leading, LEASE_MS + 10_000);
  const tookOverMs = Date.now() - killedAt;
  assert.ok(tookOverMs < LEASE_MS + 5000, `took over after ${tookOverMs} ms`);
  // Leading comes first; the job's recovery is logged after it (a busy machine once looked in between).
  const recovered = await standby.waitFor(`the standby to recover job ${jobId}`, (p) => p.log.find((l) => l.jobId === jobId && msgOf(l).startsWith(`recovering job ${jobId} `)), 30_000);
  assert.match(msgOf(recovered), /from checkpoint \d+: /, 'from its latest completed checkpoint pointer');

  // TaskManagers of the new leader (the old ones lost theirs and cancelled their subtasks).
  for (const p of cluster.processes.filter((p) => p !== leader && p !== standby)) p.kill();
  for (const id of ['tm-c', 'tm-d']) await cluster.startTaskManager({ id });
  await standby.waitFor('the job finished', (p) => p.log.some((l) => l.jobId === jobId && msgOf(l) === `job ${jobId} FINISHED`), 45_000);
  const after = (await (await fetch(`http://${standbyAddress}/overview`)).json()) as Record<string, unknown>;
  assert.equal(after['ha-role'], 'leading');
  assert.ok((after['ha-leader-epoch'] as number) > (view['ha-leader-epoch'] as number), 'a newer epoch');
  const afterConfig = ((await (await fetch(`http://${standbyAddress}/jobmanager/config`)).json()) as Array<{ key: string; value: string }>).filter((c) => c.key.startsWith('high-availability.status.'));
  assert.deepEqual(afterConfig, [
    { key: 'high-availability.status.role', value: 'leading' },
    { key: 'high-availability.status.leader-address', value: `http://${standbyAddress}` },
    { key: 'high-availability.status.leader-epoch', value: String(after['ha-leader-epoch']) },
  ]);
  assert.ok(standby.log.some((l) => l.jobId === jobId && msgOf(l).startsWith('restored from checkpoint ')), 'restored');
  // The client followed the job through the standby; whether it lived through the failover is not this test's.
  run.kill();
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
});

test('TaskManagers without --jobmanager find the leader through NATS and follow the standby when the leader is SIGKILLed, checkpoints on the object store; exactly-once', { timeout: 60_000 }, async () => {
  const c = haCluster('standby-following', 'following');
  const leader = await c.startJobManager();
  const leaderAddress = c.address;
  await leader.waitFor('leadership', leading, 20_000);
  const standby = await c.startJobManager();
  const defines = Object.entries(c.o.defines!).flatMap(([k, v]) => ['-D', `${k}=${v}`]);
  // Three TaskManagers for a job of parallelism 2: one has a spare slot, as a cluster would.
  const tms = ['tm-x', 'tm-y', 'tm-z'].map((id) => {
    const dir = join(c.o.root, id);
    mkdirSync(dir, { recursive: true });
    const tm = spawnWeir(['taskmanager', '--slots', '1', '--id', id, '--work-dir', dir, ...defines], c.env, { cwd: dir });
    c.processes.push(tm);
    return tm;
  });
  for (const id of ['tm-x', 'tm-y', 'tm-z']) await leader.waitFor(`${id} registered with the leader`, (p) => registeredOn(p, id) > 0, 30_000);
  assert.equal(registeredOn(standby, 'tm-x') + registeredOn(standby, 'tm-y') + registeredOn(standby, 'tm-z'), 0, 'not with the standby');

  // Checkpoints on the NATS object store: nothing of the job is on a disk the hosts share.
  const run = spawnWeir(wordCountArgs(c.o.root, leaderAddress, 'nats-obj://weir-standby/checkpoints'), c.env);
  const jobId = await run.jobId();
  await leader.waitFor('three completed checkpoints', (p) => completedOf(p, jobId) >= 3, 30_000);
  const killedAt = Date.now();
  leader.child.kill('SIGKILL');
  await leader.exited;
  await run.finished(30_000).catch(() => {});

  await standby.waitFor('the standby leads', leading, LEASE_MS + 10_000);
  assert.ok(Date.now() - killedAt < LEASE_MS + 5000, `took over after ${Date.now() - killedAt} ms`);
  for (const id of ['tm-x', 'tm-y', 'tm-z']) await standby.waitFor(`${id} registered with the new leader`, (p) => registeredOn(p, id) > 0, 20_000);
  await standby.waitFor('the job finished', (p) => p.log.some((l) => l.jobId === jobId && msgOf(l) === `job ${jobId} FINISHED`), 45_000);
  const restored = standby.log.find((l) => l.jobId === jobId && msgOf(l).startsWith('restored from checkpoint '));
  assert.match(restored ? msgOf(restored) : '', /: nats-obj:\/\/weir-standby\/checkpoints\//, 'restored from the object store');
  for (const tm of tms) assert.ok(tm.log.some((l) => msgOf(l).startsWith('lost the JobManager at ')), 'each TaskManager cancelled the old leader’s subtasks');
  assert.equal(diffSortedLines(readCommittedLines(join(c.o.root, 'out')), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
});

test('a bounded job that finished just before the leader is SIGKILLed is not run again (job result store)', { timeout: 60_000 }, async () => {
  const c = haCluster('standby-finished', 'finished');
  const leader = await c.startJobManager();
  const leaderAddress = c.address;
  await leader.waitFor('leadership', leading, 20_000);
  for (const id of ['tm-f1', 'tm-f2']) await c.startTaskManager({ id });
  const standby = await c.startJobManager();
  const words = 3000;
  const args = ['run', WORDCOUNT, '-m', leaderAddress, '-p', '2', '--checkpoint-dir', join(c.o.root, 'checkpoints'), '--', '--words', String(words), '--seed', String(SEED), '--output', join(c.o.root, 'out'), '--checkpoint-interval', '200'];
  const run = spawnWeir(args, c.env);
  const jobId = await run.jobId();
  await leader.waitFor('the result recorded', (p) => p.log.some((l) => msgOf(l).startsWith(`job ${jobId}: result FINISHED recorded`)), 45_000);
  leader.child.kill('SIGKILL');
  await leader.exited;
  await run.finished(30_000).catch(() => {});
  await standby.waitFor('the standby leads', leading, LEASE_MS + 10_000);
  assert.ok(!standby.log.some((l) => msgOf(l).startsWith(`recovering job ${jobId}`)), `not run again:\n${standby.tail()}`);
  assert.equal(diffSortedLines(readCommittedLines(join(c.o.root, 'out')), expectedRunningCounts(wordCounts(SEED, words))), undefined);
});
