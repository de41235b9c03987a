// What goes wrong at a cluster's edges gets a message naming what and where, and harms no running
// job: a -m where nothing answers, a job with a syntax error, a builder that throws on the
// JobManager, too few slots (the job waits slot.request.timeout, then fails naming how many it
// needed and how many were offered), a TaskManager started twice with one id, a port in use, a
// TaskManager with a wrong token.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { spawnWeir, weir } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('cluster-errors');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

test('bad input around a running job: each refused with what and where; the job finishes exactly-once', { timeout: 240_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '5 s', 'slot.request.timeout': '3 s' } });
  const jm = await cluster.startJobManager();
  await cluster.startTaskManager({ id: 'tm-a', slots: 2 });
  const env = cluster.env;

  // The job nothing may harm.
  const output = join(root, 'out');
  const words = 30_000;
  const job = spawnWeir(['run', WORDCOUNT, '-m', cluster.address, '-p', '2', '--checkpoint-dir', join(root, 'checkpoints'), '--', '--words', String(words), '--seed', '3', '--rate', '1800', '--output', output, '--checkpoint-interval', '200'], env);
  const jobId = await job.jobId();
  await jm.waitFor('the job running', (p) => p.log.some((l) => l.jobId === jobId && l.msg === 'job RUNNING'), 60_000);

  // -m where nothing answers.
  const closed = await freePort();
  const nobody = await weir(['run', WORDCOUNT, '-m', `127.0.0.1:${closed}`], env);
  assert.equal(nobody.code, 2);
  assert.match(nobody.stderr, new RegExp(`weir: no JobManager answers at http://127\\.0\\.0\\.1:${closed} \\(.*ECONNREFUSED.*\\): is weir jobmanager running there\\?`));

  // A syntax error: the bundle is not made, the file and line are named.
  const broken = join(root, 'broken.ts');
  writeFileSync(broken, "import { defineJob } from 'weir-stream';\nexport default defineJob((env) => {\n  env.fromSource(;\n});\n");
  const syntax = await weir(['run', broken, '-m', cluster.address], env);
  assert.equal(syntax.code, 2);
  assert.match(syntax.stderr, new RegExp(`job module ${broken.replace(/[.]/g, '\\.')}: cannot be bundled for the cluster: ${broken.replace(/[.]/g, '\\.')}:3:\\d+: `));

  // A builder that throws: the JobManager refuses the job, naming the module.
  const throwing = await weir(['run', join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'throws-while-building.ts'), '-m', cluster.address], env);
  assert.equal(throwing.code, 2);
  assert.match(throwing.stderr, /400 job module throws-while-building\.ts: threw while building the job: RangeError: fixture builder fails: --window must be positive/);

  // Too few slots: a second job waits slot.request.timeout, then fails with the count. The running
  // job holds both slots unless a loaded machine made it finish first: 3 are needed either way.
  const greedy = await weir(['run', WORDCOUNT, '-m', cluster.address, '-p', '3', '--', '--words', '10'], env, 60_000);
  assert.equal(greedy.code, 1, greedy.stderr);
  assert.match(greedy.stderr, /FAILED in /);
  assert.match(greedy.stderr, /Cause: .*needs 3 slots but only ([02]) were free after 3 s \(slot\.request\.timeout\); 1 TaskManager offers 2 slots in all \(tm-a: \1 of 2 free\)/);

  // A TaskManager started twice with one id: the second is refused and ends.
  const twin = spawnWeir(['taskmanager', '--jobmanager', cluster.address, '--id', 'tm-a', '--work-dir', join(root, 'twin')], env, { cwd: root });
  assert.equal(await twin.finished(30_000), 2);
  assert.match(twin.lines.join('\n'), new RegExp(`weir: the JobManager at ${cluster.address} refused this TaskManager \\(duplicate-id\\): .*TaskManager tm-a is registered from 127\\.0\\.0\\.1:\\d+ and alive`));
  assert.ok(jm.log.some((l) => typeof l.msg === 'string' && /^refused the connection from 127\.0\.0\.1:\d+ \(duplicate-id\)/.test(l.msg)), 'the JobManager logs the refusal with the address');

  // A port in use.
  const port = cluster.address.split(':')[1]!;
  const taken = await weir(['jobmanager', '--port', port, '--work-dir', join(root, 'second-jm')], env);
  assert.equal(taken.code, 2);
  assert.match(taken.stderr, new RegExp(`weir: 127\\.0\\.0\\.1:${port} is in use by another process`));

  // A TaskManager with a wrong token, at a JobManager that has one: a JobManager of its own for this.
  const guarded = new TestCluster({ root: join(root, 'guarded'), defines: { 'security.cluster.token': 'right' } });
  const gjm = await guarded.startJobManager();
  try {
    const wrong = spawnWeir(['taskmanager', '--jobmanager', guarded.address, '-D', 'security.cluster.token=wrong', '--work-dir', join(root, 'wrong')], env, { cwd: root });
    assert.equal(await wrong.finished(30_000), 2);
    assert.match(wrong.lines.join('\n'), /refused this TaskManager \(bad-token\)/);
    await gjm.waitFor('the refusal logged', (p) => p.log.some((l) => typeof l.msg === 'string' && /^refused the connection from 127\.0\.0\.1:\d+ \(bad-token\)/.test(l.msg)), 10_000);
  } finally {
    guarded.killAll();
  }

  assert.equal(await job.finished(120_000), 0, `${job.tail()}\n--- JobManager:\n${jm.tail()}`);
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(3, words))), undefined);
});
