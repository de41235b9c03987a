// A TaskManager that stops answering (user code busy-looping in its thread) or that does not stop
// its subtasks after a cancel (a sink whose abort never returns) must not hang the job: it is
// declared lost, its subtasks fail with a reason naming them and what they were doing, it is
// ended and replaced, and the job finishes with exactly-once output.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts } from '../fixtures/savepoint-helpers.ts';

const STUCK = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'stuck-task.ts');
const WORDS = 20_000;
const SEED = 3;

async function runStuck(t: { after(fn: () => void): void }, options: { args: string[]; taskManagers: number; config: Record<string, unknown>; injectFailure?: boolean }) {
  const dir = makeTempDir('liveness');
  t.after(() => removeDir(dir));
  const output = join(dir, 'out');
  const lines: Array<{ level: string; msg: string }> = [];
  const master = await createJobMaster({
    job: STUCK,
    args: ['--output', output, '--words', String(WORDS), '--seed', String(SEED), ...options.args],
    taskManagers: options.taskManagers,
    ...(options.injectFailure ? { faults: { failures: 1, seed: 5 } } : {}),
    config: {
      'execution.checkpointing.dir': join(dir, 'checkpoints'),
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 3,
      'restart-strategy.fixed-delay.delay': '100 ms',
      ...options.config,
    },
    log: createLogger({ level: 'warn', write: (line) => lines.push(JSON.parse(line) as { level: string; msg: string }) }),
  });
  const result = await master.run();
  const committed = readCommittedLines(output);
  return { master, result, lines, diff: diffSortedLines(committed, expectedRunningCounts(wordCounts(SEED, WORDS))) };
}

describe('TaskManager liveness', { timeout: 90_000 }, () => {
  test('a worker thread busy-looping in user code is declared lost by its heartbeats, replaced, and the job finishes exactly-once', async (t) => {
    const { master, result, diff } = await runStuck(t, {
      args: ['--busy-after', '3000'],
      taskManagers: 2,
      config: { 'heartbeat.interval': '250 ms', 'heartbeat.timeout': '3 s' },
    });
    assert.equal(result.status, 'FINISHED', result.error?.message);
    assert.equal(result.restarts, 1);
    const cause = master.exceptions[0]!.error;
    t.diagnostic(cause.message);
    assert.equal(cause.name, 'TaskManagerLostError');
    assert.match(cause.message, /^TaskManager 0 \(worker thread\) has not answered heartbeats for [\d.]+ s \(heartbeat\.timeout 3\.00 s\): its thread is blocked/);
    // It names the subtasks it held, with what each was last doing.
    assert.match(cause.message, /its subtasks, as last reported: 'Source: words' 1\/2: .*'Count -> Sink: files' 1\/2: processing/);
    assert.equal(diff, undefined, `committed output: ${diff}`);
  });

  for (const taskManagers of [2, 0]) {
    test(`subtasks that do not stop within task.cancellation.timeout take their ${taskManagers ? 'worker thread' : 'in-thread TaskManager'} with them; the job goes on`, async (t) => {
      const { master, result, lines, diff } = await runStuck(t, {
        args: ['--hang-abort', '--rate', '10000'],
        taskManagers,
        injectFailure: true,
        config: { 'task.cancellation.timeout': '1500 ms', 'restart-strategy.fixed-delay.attempts': 2 },
      });
      assert.equal(result.status, 'FINISHED', result.error?.message);
      assert.ok(master.exceptions.length >= 1);
      const stuck = lines.filter((l) => /did not stop its subtasks within task\.cancellation\.timeout \(1\.50 s\)/.test(l.msg));
      assert.ok(stuck.length >= 1, `a TaskManager was given up on: ${JSON.stringify(lines.map((l) => l.msg))}`);
      t.diagnostic(stuck[0]!.msg);
      assert.ok(lines.some((l) => /started a new TaskManager \d in place of the lost one/.test(l.msg)));
      assert.equal(diff, undefined, `committed output: ${diff}`);
    });
  }
});
