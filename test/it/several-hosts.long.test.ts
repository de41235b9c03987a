// The word count at parallelism 6 on a cluster of several hosts: network namespaces made here (a
// JobManager's, one per TaskManager, joined by a bridge in a namespace of its own, with addresses
// that exist only inside them), each TaskManager in a working directory without the job's files
// and in a mount namespace where the repository's jobs and tests are hidden, so its code can only
// have come through the JobManager. During the run one TaskManager is SIGKILLed: the job restarts
// from the latest checkpoint on the remaining slots plus a replacement TaskManager; then another
// TaskManager's link is cut: the heartbeat timeout detects it and the job recovers the same way.
// The committed output is exactly `w\t1..n` for every word. Where namespaces cannot be made, the
// same processes run on loopback (the cut becomes a SIGSTOP) and the test says why.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { mountNamespaceUnavailable } from '../fixtures/mount-namespace.ts';
import { NetworkNamespaces, networkNamespacesUnavailable, type Host } from '../fixtures/network-namespaces.ts';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { spawnWeir, type WeirProcess } from '../fixtures/weir-process.ts';
import { slotsOf, TestCluster } from '../fixtures/weir-cluster.ts';

const SEED = 21;
const WORDS = 60_000;
const RATE = 3_000;
const TOKEN = randomBytes(16).toString('hex');

let root: string;
let cluster: TestCluster | undefined;
let net: NetworkNamespaces | undefined;
before(() => {
  root = makeTempDir('several-hosts');
});
after(() => {
  cluster?.killAll();
  net?.remove();
  removeDir(root);
});

const logged = (p: WeirProcess, jobId: string, start: string) => p.log.filter((l) => l.jobId === jobId && typeof l.msg === 'string' && l.msg.startsWith(start));

test('several hosts: p=6 on three TaskManager hosts, one SIGKILLed, one cut off; replacements; exactly-once', { timeout: 300_000 }, async (t) => {
  const noNetns = networkNamespacesUnavailable();
  const noMountNs = mountNamespaceUnavailable();
  if (noNetns) t.diagnostic(`network namespaces cannot be made here (${noNetns}): the processes run on loopback instead`);
  if (noMountNs) t.diagnostic(`mount namespaces cannot be made here (${noMountNs}): TaskManagers only run in directories without the job's files`);
  const hidden = [join(REPO_ROOT, 'examples'), join(REPO_ROOT, 'test')];
  const hosts = new Map<string, Host>();
  if (!noNetns) {
    net = new NetworkNamespaces();
    hosts.set('jobmanager', net.addHost('jm', 1));
    for (let i = 1; i <= 5; i++) hosts.set(`tm-${i}`, net.addHost(`tm${i}`, 10 + i));
  }
  const hostOf = (name: string) => hosts.get(name);
  const inNetns = (name: string) => (hostOf(name) ? ['ip', 'netns', 'exec', hostOf(name)!.netns] : []);
  // A TaskManager's own mount namespace, where the repository's jobs and tests are empty directories.
  const hide = noMountNs
    ? []
    : ['unshare', '--mount', '--propagation', 'private', 'sh', '-c', `${hidden.map((d) => `mount -t tmpfs -o size=1m weir-hidden ${d}`).join(' && ')} && test ! -e ${WORDCOUNT} && exec "$0" "$@"`];
  cluster = new TestCluster({
    root,
    defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '5 s', 'security.cluster.token': TOKEN, 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 5, 'restart-strategy.fixed-delay.delay': '500 ms' },
    wrap: (role, i) => (role === 'jobmanager' ? inNetns('jobmanager') : [...inNetns(`tm-${i}`), ...hide]),
  });
  const jm = await cluster.startJobManager(hostOf('jobmanager')?.address ?? '127.0.0.1');
  const startTm = (i: number) => cluster!.startTaskManager({ id: `tm-${i}`, slots: 2, ...(hostOf(`tm-${i}`) ? { host: hostOf(`tm-${i}`)!.address } : {}) });
  const tms = new Map<string, WeirProcess>();
  for (const i of [1, 2, 3]) tms.set(`tm-${i}`, await startTm(i));

  const output = join(root, 'out');
  const client = spawnWeir(
    ['run', WORDCOUNT, '-m', cluster.address, '--token', TOKEN, '-p', '6', '--checkpoint-dir', join(root, 'checkpoints'), '--', '--words', String(WORDS), '--seed', String(SEED), '--rate', String(RATE), '--output', output, '--checkpoint-interval', '200'],
    cluster.env,
    { wrap: inNetns('jobmanager') },
  );
  const jobId = await client.jobId();
  const completed = () => logged(jm, jobId, 'completed checkpoint ').length;
  await jm.waitFor('two completed checkpoints', () => completed() >= 2, 120_000);
  assert.deepEqual(new Set(slotsOf(jm, jobId).values()), new Set(['tm-1', 'tm-2', 'tm-3']));

  // 1. SIGKILL one TaskManager; a replacement joins; the job restarts on its slots and the four left.
  const killed = slotsOf(jm, jobId).get(0)!;
  tms.get(killed)!.child.kill('SIGKILL');
  tms.set('tm-4', await startTm(4));
  await jm.waitFor('the restore after the kill', () => logged(jm, jobId, 'restored from checkpoint ').length >= 1, 120_000);
  const afterKill = new Set(slotsOf(jm, jobId).values());
  assert.ok(!afterKill.has(killed) && afterKill.has('tm-4'), `slots after the kill: ${[...afterKill].join(', ')}`);
  const checkpointsBeforeCut = completed();
  await jm.waitFor('two more completed checkpoints', () => completed() >= checkpointsBeforeCut + 2, 120_000);

  // 2. Cut another TaskManager off (on loopback: stop it); only the heartbeat timeout can tell.
  const cut = [...slotsOf(jm, jobId).values()].find((id) => id !== 'tm-4' && id !== killed)!;
  if (net) net.cut(hostOf(cut)!);
  else tms.get(cut)!.child.kill('SIGSTOP');
  tms.set('tm-5', await startTm(5));
  await jm.waitFor('the heartbeat timeout', (p) => p.log.some((l) => typeof l.msg === 'string' && l.msg.startsWith(`TaskManager ${cut} at `) && l.msg.includes('has not answered heartbeats')), 60_000);
  await jm.waitFor('the second restore', () => logged(jm, jobId, 'restored from checkpoint ').length >= 2, 120_000);
  const afterCut = new Set(slotsOf(jm, jobId).values());
  assert.ok(!afterCut.has(cut) && afterCut.has('tm-5'), `slots after the cut: ${[...afterCut].join(', ')}`);

  assert.equal(await client.finished(180_000), 0, `${client.tail()}\n--- JobManager:\n${jm.tail()}`);
  const restores = logged(jm, jobId, 'restored from checkpoint ').map((l) => l.msg);
  t.diagnostic(`${net ? 'namespaces' : 'loopback'}: killed ${killed}, cut ${cut}; ${restores.join('; ')}`);
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
});
