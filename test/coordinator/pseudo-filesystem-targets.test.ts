// Savepoint, checkpoint and sink targets on /proc: Node's recursive mkdir spins forever there (100%
// CPU, the savepoint in progress for the whole timeout, a process that never exits). Each must be
// a clear error naming the path and the filesystem type, with little CPU; a running job keeps
// running and cancel ends the process.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { completedCheckpoints, startWeirRun, weir, weirEnv } from '../fixtures/weir-process.ts';

let root: string;
before(() => {
  root = makeTempDir('proc-targets');
});
after(() => removeDir(root));

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function poll(url: string, init?: RequestInit): Promise<any> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

/** Polls a savepoint or stop operation until it completes. */
async function operationResult(base: string, requestId: string): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const op = (await poll(`${base}/savepoints/${requestId}`)).body;
    if (op.status.id === 'COMPLETED') return op;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`operation ${requestId} did not complete`);
}

describe('pseudo-filesystem targets', { timeout: 90_000 }, () => {
  test('a savepoint or stop-with-savepoint into /proc fails at once; the job keeps checkpointing; cancel ends the process', async () => {
    const run = startWeirRun([WORDCOUNT, '-D', 'execution.checkpointing.interval=100 ms', '--', '--words', '100000000', '--rate', '2000'], weirEnv(root));
    try {
      const [jobId, jm] = await Promise.all([run.jobId(), run.jobManager()]);
      await run.waitFor('a completed checkpoint', (r) => completedCheckpoints(r).length > 0);
      const pid = run.child.pid!;
      const cpuBefore = cpuSeconds(pid);
      const startedAt = Date.now();

      const trigger = await poll(`http://${jm}/jobs/${jobId}/savepoints`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ 'target-directory': '/proc/self' }) });
      assert.equal(trigger.status, 202);
      let op = await operationResult(`http://${jm}/jobs/${jobId}`, trigger.body['request-id']);
      assert.match(op.operation['failure-cause']['stack-trace'], /\/proc\/self\/sp-[0-9a-f]+-[0-9a-f]+ is on a proc filesystem, a kernel pseudo-filesystem/);

      const stop = await poll(`http://${jm}/jobs/${jobId}/stop`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ targetDirectory: '/proc/self/x', drain: true }) });
      assert.equal(stop.status, 202);
      op = await operationResult(`http://${jm}/jobs/${jobId}`, stop.body['request-id']);
      assert.match(op.operation['failure-cause']['stack-trace'], /is on a proc filesystem/);

      // The job runs on and checkpoints on: nothing is stuck behind the refused targets.
      const seen = completedCheckpoints(run).length;
      await run.waitFor('checkpoints after the refusals', (r) => completedCheckpoints(r).length >= seen + 3);
      const job = (await poll(`http://${jm}/jobs/${jobId}`)).body;
      assert.equal(job.state, 'RUNNING');
      const cpu = cpuSeconds(pid) - cpuBefore;
      const wall = (Date.now() - startedAt) / 1000;
      assert.ok(cpu < 0.8 * wall, `the process used ${cpu.toFixed(2)} s of CPU in ${wall.toFixed(2)} s (a spinning mkdir uses a whole core)`);

      assert.equal((await poll(`http://${jm}/jobs/${jobId}?mode=cancel`, { method: 'PATCH' })).status, 202);
      assert.equal(await run.finished(20_000), 1);
    } finally {
      run.kill();
    }
  });

  test('a checkpoint directory under /proc fails the job at its start, naming the directory and the type', async () => {
    const r = await weir(['run', WORDCOUNT, '-D', 'rest.port=0', '-D', 'execution.checkpointing.dir=/proc/self/checkpoints', '--', '--words', '1000'], weirEnv(root), 20_000);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /execution\.checkpointing\.dir: \/proc\/self\/checkpoints\/[0-9a-f]{32} is on a proc filesystem/);
  });

  test('a FileSink output directory under /proc fails the task with a clear error; the job ends', async () => {
    const r = await weir(['run', WORDCOUNT, '-D', 'rest.port=0', '-D', 'restart-strategy.type=none', '--', '--words', '1000', '--output', '/proc/self/out'], weirEnv(root), 20_000);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /PseudoFileSystemError: \/proc\/self\/out is on a proc filesystem/);
  });
});
