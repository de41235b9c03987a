// Checkpoint storage that stops working: the job's checkpoint directory is replaced by a regular
// file (tests run as root, so permissions would not stop a write), so no chk-N directory can be
// made. Checkpoints are declined with the storage error as their reason and count against the
// tolerable failures; within the limit the job keeps running and checkpoints complete again once
// the directory is back; beyond it the job fails over with CheckpointFailureError.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { seededRandom } from '../../src/coordinator/fault-injector.ts';
import {
  ControlledSource,
  diffSortedLines,
  expectedRunningCounts,
  JobEvents,
  makeTempDir,
  readCommittedLines,
  removeDir,
  wordCountToFiles,
} from '../fixtures/recovery-helpers.ts';

let root: string;
before(() => {
  root = makeTempDir('storage');
});
after(() => removeDir(root));

const STORAGE_ERROR = /writing the snapshot failed: cannot create directory [^:]+: \S+ is a file, not a directory \(ENOTDIR\)/;

async function startJob(name: string, tolerable: number) {
  const dir = join(root, name);
  const output = join(dir, 'output');
  const rnd = seededRandom(tolerable + 1);
  const words = Array.from({ length: 15_000 }, () => `w${Math.floor(rnd() * rnd() * 200)}`);
  const counts = new Map<string, number>();
  for (const w of words) counts.set(w, (counts.get(w) ?? 0) + 1);
  // Slow until the test is done with its checks, then as fast as it goes.
  const control = { fast: false };
  const source = new ControlledSource(DataGen.of((i) => words[i]!, { count: words.length }), {
    ratePerSecond: () => (control.fast ? Infinity : 3000),
  });
  const job = wordCountToFiles(source, output, { interval: 100, tolerableFailures: tolerable });
  const events = new JobEvents();
  const master = await createJobMaster({
    job,
    config: {
      'execution.checkpointing.dir': join(dir, 'checkpoints'),
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 3,
      'restart-strategy.fixed-delay.delay': '200 ms',
    },
    listener: events.listener,
    log: createLogger({ level: 'error', write: () => {} }),
  });
  const result = master.run();
  await events.waitFor('two completed checkpoints', () => events.completed.some((c) => c.id >= 2));
  const jobDir = master.checkpointDirectory;
  const away = `${jobDir}.away`;
  return {
    master,
    events,
    result,
    control,
    output,
    expected: expectedRunningCounts(counts),
    /** Puts a regular file where the job's checkpoint directory was (the directory is kept aside). */
    breakStorage() {
      renameSync(jobDir, away);
      writeFileSync(jobDir, 'not a directory\n');
    },
    repairStorage() {
      unlinkSync(jobDir);
      renameSync(away, jobDir);
    },
  };
}

describe('unwritable checkpoint storage', () => {
  test('within the tolerable failures: checkpoints are declined with the storage error, the job keeps running', async () => {
    const job = await startJob('within', 50);
    const { master, events } = job;
    const lastGood = Math.max(...events.completed.map((c) => c.id));
    const failedBefore = events.failed.length;
    job.breakStorage();
    const failures = await events.waitFor('three checkpoints declined by the storage error', () => {
      const f = events.failed.slice(failedBefore).filter((x) => STORAGE_ERROR.test(x.reason));
      return f.length >= 3 && f;
    });
    for (const f of events.failed.slice(failedBefore)) assert.match(f.reason, /failed: cannot create directory [^:]+: \S+ is a file, not a directory \(ENOTDIR\)/);
    for (const f of failures) {
      assert.match(f.reason, /^declined by '.+' subtask \d+: writing the snapshot failed: /);
      assert.ok(f.reason.includes(join(master.checkpointDirectory, `chk-${f.id}`)), `the reason does not name the directory: ${f.reason}`);
      const stats = master.checkpoints.stats.get(f.id);
      assert.equal(stats?.status, 'FAILED');
      assert.equal(stats?.failureMessage, f.reason);
    }
    assert.equal(events.completed.filter((c) => c.id > lastGood).length, 0, 'a checkpoint completed without storage');
    assert.equal(master.status, 'RUNNING');
    assert.equal(master.restarts, 0);

    job.repairStorage();
    const repairedAt = Date.now();
    await events.waitFor('a checkpoint after the repair', () => events.completed.some((c) => c.triggeredAt > repairedAt));
    job.control.fast = true;
    const r = await job.result;
    assert.equal(r.status, 'FINISHED', `job did not finish: ${r.error?.message}`);
    assert.equal(master.restarts, 0, `the job restarted: ${events.describe()}`);
    assert.deepEqual(master.exceptions, []);
    assert.ok(master.checkpoints.stats.counts.failed >= 3);
    const diff = diffSortedLines(readCommittedLines(job.output), job.expected);
    assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
  });

  test('beyond the tolerable failures: the job fails over with CheckpointFailureError and restores the last good checkpoint', async () => {
    const job = await startJob('beyond', 2);
    const { master, events } = job;
    const failedBefore = events.failed.length;
    // The restart reads the latest checkpoint: give the directory back before it does.
    events.onRestart = () => job.repairStorage();
    job.breakStorage();
    const lastGood = Math.max(...events.completed.map((c) => c.id));
    await events.waitFor('the restore', () => events.restored[0]);
    job.control.fast = true;
    const r = await job.result;

    // Three failures in a row, each because of the storage (a checkpoint that was writing its
    // _metadata when the directory went away fails with the same error).
    const failures = events.failed.slice(failedBefore).filter((x) => x.reason !== 'job failover');
    assert.equal(failures.length, 3, `expected three failed checkpoints before the failover: ${events.describe()}`);
    for (const f of failures) assert.match(f.reason, /(writing the snapshot|writing _metadata) failed: cannot create directory [^:]+: \S+ is a file, not a directory \(ENOTDIR\)/);
    assert.ok(failures.some((f) => STORAGE_ERROR.test(f.reason)), 'no checkpoint was declined by a subtask');
    assert.equal(master.exceptions.length, 1, `expected one failover: ${events.describe()}`);
    const cause = master.exceptions[0]!.error;
    assert.equal(cause.name, 'CheckpointFailureError');
    assert.match(cause.message, /^exceeded checkpoint tolerable failure threshold \(3 consecutive failures, execution\.checkpointing\.tolerable-failed-checkpoints is 2\); last: declined by .*writing the snapshot failed: cannot create directory [^:]+: \S+ is a file, not a directory \(ENOTDIR\)/);
    assert.equal(events.restored[0]!.checkpointId, lastGood);

    assert.equal(r.status, 'FINISHED', `job did not finish: ${r.error?.message}`);
    assert.equal(master.restarts, 1);
    const diff = diffSortedLines(readCommittedLines(job.output), job.expected);
    assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
  });
});
