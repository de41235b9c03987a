// Split brain: the leader JobManager paused (SIGSTOP) past its 3 s lease while its job runs on
// TaskManagers that follow the leader through NATS. The standby takes over and the TaskManagers
// leave the paused leader's epoch for the new one; resumed (SIGCONT), the old leader completes no
// checkpoint (its pointer writes are fenced) and so commits nothing, and the output is exact.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { spawnWeir, type WeirProcess } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { msgOf, leading, completedOf, registeredOn } from '../fixtures/process-log.ts';

const SEED = 11;
const WORDS = 30_000;
const LEASE_MS = 3000;

let root: string;
let nats: NatsCluster;
let cluster: TestCluster | undefined;
before(async () => {
  root = makeTempDir('ha-split-brain');
  nats = await startNatsCluster();
});
after(async () => {
  for (const p of cluster?.processes ?? []) p.child.kill('SIGCONT');
  cluster?.killAll();
  await nats?.stop();
  removeDir(root);
});


test('SIGSTOP of the leader past its lease, SIGCONT after the standby took over: the old leader completes no checkpoint; exactly-once', { timeout: 60_000 }, async (t) => {
  const c = new TestCluster({
    root,
    defines: {
      'high-availability.type': 'nats',
      'high-availability.nats.servers': nats.servers,
      'high-availability.cluster-id': 'split-brain',
      'high-availability.nats.lease-duration': `${LEASE_MS} ms`,
      'heartbeat.interval': '1 s',
      'heartbeat.timeout': '5 s',
    },
  });
  cluster = c;
  const old = await c.startJobManager();
  const oldAddress = c.address;
  await old.waitFor('leadership', leading, 20_000);
  const standby = await c.startJobManager();
  const defines = Object.entries(c.o.defines!).flatMap(([k, v]) => ['-D', `${k}=${v}`]);
  for (const id of ['tm-p', 'tm-q']) {
    const dir = join(root, id);
    mkdirSync(dir, { recursive: true });
    c.processes.push(spawnWeir(['taskmanager', '--slots', '1', '--id', id, '--work-dir', dir, ...defines], c.env, { cwd: dir }));
  }
  for (const id of ['tm-p', 'tm-q']) await old.waitFor(`${id} registered`, (p) => registeredOn(p, id) > 0, 30_000);

  const output = join(root, 'out');
  const run = spawnWeir(['run', WORDCOUNT, '-m', oldAddress, '-p', '2', '--checkpoint-dir', join(root, 'checkpoints'), '--', '--words', String(WORDS), '--seed', String(SEED), '--rate', '3000', '--output', output, '--checkpoint-interval', '200'], c.env);
  const jobId = await run.jobId();
  await old.waitFor('three completed checkpoints', (p) => completedOf(p, jobId) >= 3, 30_000);

  old.child.kill('SIGSTOP');
  await standby.waitFor('the standby leads', leading, LEASE_MS + 10_000);
  for (const id of ['tm-p', 'tm-q']) await standby.waitFor(`${id} registered with the new leader`, (p) => registeredOn(p, id) > 0, 20_000);
  const completedBefore = completedOf(old, jobId);
  old.child.kill('SIGCONT');
  await old.waitFor('the old leader hears it lost the leadership', (p) => p.log.some((l) => msgOf(l).startsWith('leadership (epoch ') && msgOf(l).includes(' revoked')), 20_000);

  await standby.waitFor('the job finished', (p) => p.log.some((l) => l.jobId === jobId && msgOf(l) === `job ${jobId} FINISHED`), 45_000);
  assert.equal(completedOf(old, jobId), completedBefore, 'the resumed old leader completed no checkpoint');
  assert.ok(!old.log.some((l) => msgOf(l).startsWith(`job ${jobId}: result `)), 'nor recorded a result');
  run.kill();
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);

  // The TaskManagers' fence: none acted on the old leader once it had seen the new one. Whether
  // the resumed old leader still reached one (and was refused) depends on timing: told, not asserted.
  for (const tm of c.processes.slice(-2)) {
    const fence = fenceOf(tm);
    assert.equal(fence.newest, 2, `${fence.id} saw the new leader's epoch`);
    assert.deepEqual(fence.lateStarts, [], `${fence.id} started no slot of an epoch older than one it had seen`);
    assert.deepEqual(fence.refused.filter((r) => r.epoch !== 1), [], `${fence.id} refused only the old leader's messages`);
    t.diagnostic(`${fence.id}: ${fence.refused.length} message(s) of the old leader refused${fence.refused.length ? ` (${[...new Set(fence.refused.map((r) => r.type))].join(', ')})` : ''}; ${fence.cancelled} slot(s) cancelled by the fence`);
  }
});

/** What a TaskManager's log says of its leader epochs: the newest it saw, slots started under an older one after that, refusals. */
function fenceOf(tm: WeirProcess) {
  let newest = 0;
  const lateStarts: string[] = [];
  const refused: Array<{ type: string; epoch: number; newestEpoch: number }> = [];
  let cancelled = 0;
  let id = '';
  for (const l of tm.log) {
    const msg = msgOf(l);
    id ||= /^registered with the JobManager at .* as (\S+):/.exec(msg)?.[1] ?? '';
    const seen = /\(leader epoch (\d+)\)/.exec(msg);
    if (seen && msg.startsWith('registered with ')) newest = Math.max(newest, Number(seen[1]));
    if (typeof l.newestEpoch === 'number') newest = Math.max(newest, l.newestEpoch);
    if (seen && msg.startsWith('slot ') && Number(seen[1]) < newest) lateStarts.push(msg);
    if (msg.startsWith('refused ')) refused.push({ type: String(l.type), epoch: Number(l.epoch), newestEpoch: Number(l.newestEpoch) });
    if (msg.includes('has been seen: cancelling its subtasks')) cancelled++;
  }
  return { id, newest, lateStarts, refused, cancelled };
}
