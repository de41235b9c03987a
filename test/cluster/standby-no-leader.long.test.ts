// While no JobManager leads (two of three NATS nodes lost: the leader gave its leadership up and
// nobody can take it), a standby asked about a job it does not have answers 503 "no leader", not
// 404 "not found": the job exists, this JobManager cannot tell where. Before, with a leader, the
// standby answers for it; the deposed leader still shows the job it holds, SUSPENDED.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { msgOf, leading, completedOf } from '../fixtures/process-log.ts';

const LEASE_MS = 3000;

let root: string;
let nats: NatsCluster;
let cluster: TestCluster | undefined;
before(async () => {
  root = makeTempDir('ha-no-leader');
  nats = await startNatsCluster();
});
after(async () => {
  cluster?.killAll();
  await nats?.stop();
  removeDir(root);
});

test('a standby asked about a job while there is no leader answers 503 "no leader", not 404', { timeout: 90_000 }, async () => {
  const c = (cluster = new TestCluster({
    root,
    defines: {
      'high-availability.type': 'nats',
      'high-availability.nats.servers': nats.servers,
      'high-availability.cluster-id': 'no-leader',
      'high-availability.nats.lease-duration': `${LEASE_MS} ms`,
      'heartbeat.interval': '1 s',
      'heartbeat.timeout': '5 s',
      'execution.checkpointing.tolerable-failed-checkpoints': 100,
    },
  }));
  const leader = await c.startJobManager();
  const leaderAddress = c.address;
  await leader.waitFor('leadership', leading, 30_000);
  await c.startTaskManager({ id: 'tm-1' });
  const standby = await c.startJobManager();
  const standbyAddress = c.address;
  const run = spawnWeir(['run', WORDCOUNT, '-m', leaderAddress, '-p', '1', '-d', '--checkpoint-dir', join(root, 'checkpoints'), '--', '--words', '200000', '--rate', '2000', '--output', join(root, 'out'), '--checkpoint-interval', '300'], c.env);
  const jobId = await run.jobId();
  await leader.waitFor('a completed checkpoint', (p) => completedOf(p, jobId) >= 1, 30_000);
  const ask = async (address: string, path: string) => {
    const res = await fetch(`http://${address}${path}`);
    return { status: res.status, body: (await res.json()) as { state?: string; errors?: string[] } };
  };
  const forwarded = await ask(standbyAddress, `/jobs/${jobId}`);
  assert.equal(forwarded.status, 200, 'with a leader, the standby answers for it');
  assert.equal(forwarded.body.state, 'RUNNING');

  await Promise.all([nats.nodes[1]!.kill(), nats.nodes[2]!.kill()]);
  await leader.waitFor('the leadership given up', (p) => p.log.some((l) => /ends \(RENEW_DEADLINE_EXCEEDED\)/.test(msgOf(l))), LEASE_MS + 15_000);
  await standby.waitFor('the standby knows no leader', (p) => p.log.some((l) => /has not renewed its lease/.test(msgOf(l))), LEASE_MS + 15_000);

  for (const path of [`/jobs/${jobId}`, `/v1/jobs/${jobId}`, `/jobs/${jobId}/checkpoints`, `/jobs/${'0'.repeat(32)}`]) {
    const answer = await ask(standbyAddress, path);
    assert.equal(answer.status, 503, `${path}: ${JSON.stringify(answer.body)}`);
    assert.match(answer.body.errors?.[0] ?? '', /no leader/, path);
  }
  const held = await ask(leaderAddress, `/jobs/${jobId}`);
  assert.equal(held.status, 200, 'the deposed leader still shows the job it holds');
  assert.equal(held.body.state, 'SUSPENDED');
  run.kill();
});
