// NATS lost while a job runs: two of the three nodes of the private JetStream cluster are killed
// (no quorum: no key-value or object write can complete). Checkpoints decline with a storage
// reason while the leader's lease still holds; when it cannot be renewed the leader gives its
// leadership up loudly and suspends the job (the TaskManagers cancel its subtasks, its checkpoints
// stay). Past the lease the nodes return; a leader is elected, recovers the job from its latest
// completed checkpoint pointer and it finishes: the committed output is exactly one run's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { spawnWeir, type WeirProcess } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { msgOf, leadingCount, completedOf } from '../fixtures/process-log.ts';

const SEED = 5;
const WORDS = 40_000;
const LEASE_MS = 3000;
// On the object store of the same NATS cluster: the outage takes the checkpoint storage away too.
const CHECKPOINTS = 'nats-obj://weir-outage/checkpoints';

let root: string;
let nats: NatsCluster;
let cluster: TestCluster | undefined;
before(async () => {
  root = makeTempDir('ha-nats-outage');
  nats = await startNatsCluster();
});
after(async () => {
  if (process.env.WEIR_TEST_DEBUG) for (const p of cluster?.processes ?? []) console.log(`--- ${p.child.spawnargs.slice(2, 4).join(' ')}\n${p.log.map((l) => JSON.stringify(l)).join('\n')}`);
  cluster?.killAll();
  await nats?.stop();
  removeDir(root);
});


test('two of three NATS nodes down past the lease: checkpoints decline, the leader gives up and suspends the job; the nodes return and it resumes exactly-once', { timeout: 120_000 }, async () => {
  const c = (cluster = new TestCluster({
    root,
    defines: {
      'high-availability.type': 'nats',
      'high-availability.nats.servers': nats.servers,
      'high-availability.cluster-id': 'outage',
      'high-availability.nats.lease-duration': `${LEASE_MS} ms`,
      'heartbeat.interval': '1 s',
      'heartbeat.timeout': '5 s',
      'execution.checkpointing.tolerable-failed-checkpoints': 100,
    },
  }));
  const jm = await c.startJobManager();
  await jm.waitFor('leadership', (p) => leadingCount(p) > 0, 20_000);
  for (const id of ['tm-1', 'tm-2']) await c.startTaskManager({ id });
  const output = join(root, 'out');
  const args = ['run', WORDCOUNT, '-m', c.address, '-p', '2', '-d', '--checkpoint-dir', CHECKPOINTS, '--', '--words', String(WORDS), '--seed', String(SEED), '--rate', '2500', '--output', output, '--checkpoint-interval', '200'];
  const run = spawnWeir(args, c.env);
  const jobId = await run.jobId();
  await jm.waitFor('two completed checkpoints', (p) => completedOf(p, jobId) >= 2, 30_000);

  const [a, b] = [nats.nodes[1]!, nats.nodes[2]!];
  await Promise.all([a.kill(), b.kill()]);
  const killedAt = jm.log.length;
  await jm.waitFor('the leadership given up', (p) => p.log.some((l) => /ends \(RENEW_DEADLINE_EXCEEDED\)/.test(msgOf(l))), LEASE_MS + 10_000);
  await jm.waitFor('the job suspended', (p) => p.log.some((l) => l.jobId === jobId && msgOf(l).startsWith(`job ${jobId} SUSPENDED`)), 20_000);
  // Those in flight fail with a reason of the table: storage while the lease holds, suspension after.
  // A checkpoint that could not even take its id from the HA store's counter fails before it has one (IO_EXCEPTION).
  const failed = jm.log.slice(killedAt).filter((l) => l.jobId === jobId && /^checkpoint (\d+ failed|not started)/.test(msgOf(l)));
  assert.ok(failed.length > 0, `the checkpoints in flight failed:\n${jm.tail()}`);
  for (const f of failed) assert.ok(['IO_EXCEPTION', 'FINALIZE_CHECKPOINT_FAILURE', 'TASK_CHECKPOINT_FAILURE', 'CHECKPOINT_ASYNC_EXCEPTION', 'CHECKPOINT_EXPIRED', 'CHECKPOINT_COORDINATOR_SUSPEND'].includes(f.code as string), `${msgOf(f)} (${String(f.code)})`);
  const suspended = jm.log.findIndex((l) => l.jobId === jobId && msgOf(l) === 'job SUSPENDED');
  const completedBefore = completedOf(jm, jobId);
  assert.equal(jm.log.slice(killedAt, suspended).filter((l) => l.jobId === jobId && msgOf(l).startsWith('completed checkpoint ')).length, 0, 'none completed without quorum');
  // Past the lease: nobody may lead meanwhile (no quorum), and the job stays suspended.
  await new Promise((r) => setTimeout(r, LEASE_MS));
  const view = (await (await fetch(`http://${c.address}/jobs/${jobId}`)).json()) as { state: string };
  assert.equal(view.state, 'SUSPENDED', 'the REST API says so while NATS is away');
  assert.equal(completedOf(jm, jobId), completedBefore, 'no checkpoint completes without NATS');
  await Promise.all([a.start(), b.start()]);
  await jm.waitFor('leading again', (p) => leadingCount(p) >= 2, 60_000);
  const recovered = jm.log.find((l) => l.jobId === jobId && msgOf(l).startsWith(`recovering job ${jobId} `));
  assert.match(recovered ? msgOf(recovered) : '', / from checkpoint \d+: /, `recovered from a pointer:\n${jm.tail()}`);
  await jm.waitFor('the job finished', (p) => p.log.some((l) => l.jobId === jobId && msgOf(l) === `job ${jobId} FINISHED`), 60_000).catch(async (e) => {
    if (process.env.WEIR_TEST_DEBUG) for (const path of ['/overview', `/jobs/${jobId}`]) console.log(path, await (await fetch(`http://${c.address}${path}`)).text());
    throw e;
  });
  run.kill();
  if (process.env.WEIR_TEST_DEBUG) console.log(jm.log.map((l) => JSON.stringify(l)).join('\n'));
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
});
