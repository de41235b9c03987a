// A fresh 3-node NATS JetStream cluster started at the same moment as weir's processes (a
// JobManager with high-availability.type nats and a TaskManager that finds the leader through
// NATS): while the servers find each other and elect their JetStream and stream leaders, both
// processes wait, logging what they wait for with the attempt and the next delay, and then come
// up; a job submitted then runs to its end, exactly once. (The processes are spawned first and the
// servers launched once both have logged a first wait: started in the same instant, which of them
// finds the cluster still forming is a race.) In test:long (a 3-node NATS cluster, three processes);
// the bound, with nothing to wait for, is in ha-startup.test.ts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { spawnWeir, weir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';
import { msgOf, leading, registeredOn } from '../fixtures/process-log.ts';

const SEED = 11;
const WORDS = 4000;

let root: string;
let nats: NatsCluster | undefined;
const processes: WeirProcess[] = [];
before(() => {
  root = makeTempDir('ha-startup');
});
after(async () => {
  for (const p of processes) p.kill();
  await nats?.stop();
  removeDir(root);
});

/** The log lines of a process that say it waits for NATS: each with its attempt and the next delay. */
const waits = (p: WeirProcess) => p.log.filter((l) => msgOf(l).startsWith('waiting for NATS'));

function start(args: readonly string[], dir: string): WeirProcess {
  mkdirSync(dir, { recursive: true });
  const p = spawnWeir(args, weirEnv(root), { cwd: dir });
  processes.push(p);
  return p;
}

test('a JobManager and a TaskManager started together with a fresh 3-node NATS cluster wait for it, then come up and run a job to its end', { timeout: 120_000 }, async () => {
  // The weir processes first: once both have found nothing to connect to, the servers are launched.
  let jm!: WeirProcess;
  let tm!: WeirProcess;
  const cluster = await startNatsCluster({
    awaitReady: false,
    beforeLaunch: async (servers) => {
      const defines = ['-D', 'high-availability.type=nats', '-D', `high-availability.nats.servers=${servers}`, '-D', 'high-availability.cluster-id=startup', '-D', 'heartbeat.interval=1 s', '-D', 'heartbeat.timeout=5 s'];
      jm = start(['jobmanager', '--host', '127.0.0.1', '--port', '0', '--work-dir', join(root, 'jm'), ...defines], join(root, 'jm'));
      tm = start(['taskmanager', '--slots', '2', '--id', 'tm-s', '--work-dir', join(root, 'tm'), ...defines], join(root, 'tm'));
      await Promise.all([jm, tm].map((p) => p.waitFor('a first wait for NATS', (q) => waits(q).length > 0, 30_000)));
    },
  });
  nats = cluster;

  const address = await jm.jobManager().catch((e: Error) => assert.fail(`the JobManager did not come up: ${e.message}`));
  await jm.waitFor('leadership', leading, 60_000);
  await Promise.race([
    jm.waitFor('the TaskManager registered', (p) => registeredOn(p, 'tm-s') > 0, 60_000),
    tm.exited.then(() => assert.fail(`the TaskManager exited:\n${tm.tail()}`)),
  ]);
  for (const [name, p] of [['JobManager', jm], ['TaskManager', tm]] as const) {
    const lines = waits(p);
    assert.ok(lines.length > 0, `the ${name} logged that it waited for NATS:\n${p.tail()}`);
    for (const l of lines) {
      assert.equal(typeof l.attempt, 'number', `${msgOf(l)}: the attempt`);
      assert.equal(typeof l.nextDelayMs, 'number', `${msgOf(l)}: the next delay`);
      assert.match(msgOf(l), new RegExp(cluster.nodes[0]!.url.replace(/[.]/g, '\\.')), 'names the servers');
    }
    const delays = lines.map((l) => l.nextDelayMs as number);
    assert.ok(delays.every((d, i) => i === 0 || d >= delays[i - 1]!), `backoff: the delays do not shrink (${delays.join(', ')})`);
  }

  const output = join(root, 'out');
  const run = await weir(['run', WORDCOUNT, '-m', address, '-p', '2', '--checkpoint-dir', join(root, 'checkpoints'), '--', '--words', String(WORDS), '--seed', String(SEED), '--output', output, '--checkpoint-interval', '200'], weirEnv(root), 90_000);
  assert.equal(run.code, 0, run.stderr);
  const jobId = /Job ID: ([0-9a-f]{32})/.exec(run.stdout)?.[1];
  assert.ok(jobId, run.stdout);
  await jm.waitFor('the job finished', (p) => p.log.some((l) => l.jobId === jobId && msgOf(l) === `job ${jobId} FINISHED`), 30_000);
  const expected = expectedRunningCounts(wordCounts(SEED, WORDS));
  assert.ok(expected.length > 0);
  assert.equal(diffSortedLines(readCommittedLines(output), expected), undefined);
});
