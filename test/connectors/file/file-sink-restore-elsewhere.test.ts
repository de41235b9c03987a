// A FileSink job restored from a retained checkpoint with another output directory (`weir run -s`
// with a new --output): the checkpoint's pending files are committed where they were written and
// the job goes on in the new directory, exactly once over both; when the old directory is gone,
// the restore fails at once naming both directories. Never a restart loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { readSnapshot } from '../../../src/checkpoint/snapshot-reader.ts';
import { completeCheckpoints, diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../../fixtures/savepoint-helpers.ts';
import { completedCheckpoints, startWeirRun, weir, weirEnv } from '../../fixtures/weir-process.ts';

const WORDS = 20_000;
const SEED = 11;
/** A strategy that would restart 10 times: a failure a restart cannot mend must not use it. */
const RESTARTS = ['-D', 'restart-strategy.type=fixed-delay', '-D', 'restart-strategy.fixed-delay.attempts=10', '-D', 'restart-strategy.fixed-delay.delay=100 ms'];

/** The pending file a committable names (a plain name: what weirs before absolute committables wrote). */
function pendingName(c: unknown): string {
  return typeof c === 'string' ? c : (c as { name: string }).name;
}

test('FileSink restored with another output directory: pending files commit where they were written, or it fails at once naming both', { timeout: 120_000 }, async (t) => {
  const root = makeTempDir('file-sink-elsewhere');
  t.after(() => removeDir(root));
  const env = weirEnv(root);
  const checkpoints = join(root, 'checkpoints');
  const [first, gone, second] = ['out-first', 'out-gone', 'out-second'].map((d) => join(root, d)) as [string, string, string];
  const args = (output: string, extra: readonly string[] = []) => [
    WORDCOUNT, '-p', '2', '--checkpoint-dir', checkpoints, '-D', 'execution.checkpointing.externalized-checkpoint-retention=RETAIN_ON_CANCELLATION', ...RESTARTS,
    '--', '--words', String(WORDS), '--seed', String(SEED), '--checkpoint-interval', '200', '--output', output, ...extra,
  ];

  // A first run, killed after a few checkpoints.
  const run = startWeirRun(args(first, ['--rate', '4000']), env);
  try {
    await run.waitFor('three completed checkpoints', (r) => completedCheckpoints(r).length >= 3);
    assert.equal(run.child.exitCode, null, 'the job ended before the kill');
    run.child.kill('SIGKILL');
    await run.exited;
  } finally {
    run.kill();
  }
  const latest = completeCheckpoints(join(checkpoints, await run.jobId()))[0];
  assert.ok(latest, 'a retained checkpoint');

  // Its pending files, as a kill between the checkpoint's completion and its commit leaves them
  // (the kill lands there only sometimes: the files it had committed are made pending again).
  const snapshot = await readSnapshot(latest.dir);
  const sink = snapshot.operators.find((o) => o.uid === 'sink');
  const pending = (sink?.operator['_sink-committables']?.values ?? []).flatMap((p) => (p as { committables: unknown[] }).committables.map(pendingName));
  assert.ok(pending.length > 0, 'the checkpoint holds pending files');
  for (const name of pending) {
    const committed = join(first, name.slice(1, -'.pending'.length));
    if (existsSync(committed)) renameSync(committed, join(first, name));
  }

  // The first directory moved away: nothing to commit where the files were written. Fails at once.
  renameSync(first, gone);
  const failed = await weir(['run', '-D', 'rest.port=0', '-s', latest.dir, ...args(second)], env);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /Job [0-9a-f]{32} FAILED in [^,\n]+\n/, 'FAILED, and the line counts no restart');
  assert.ok(failed.stderr.includes(first) && failed.stderr.includes(second), `the error names both directories:\n${failed.stderr}`);
  assert.doesNotMatch(failed.stderr, /restarting \(attempt/);

  // Back in place: the restore commits them there, and the job goes on in the new directory.
  renameSync(gone, first);
  const resumed = await weir(['run', '-D', 'rest.port=0', '-s', latest.dir, ...args(second)], env);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.doesNotMatch(resumed.stderr, /restarting \(attempt/);
  for (const name of pending) {
    assert.ok(existsSync(join(first, name.slice(1, -'.pending'.length))), `${name} committed in ${first}`);
    assert.ok(!existsSync(join(first, name)), `${name} no longer pending`);
  }
  const lines = [...readCommittedLines(first), ...readCommittedLines(second)].sort();
  assert.ok(readCommittedLines(second).length > 0, 'the resumed job wrote to the new directory');
  assert.equal(diffSortedLines(lines, expectedRunningCounts(wordCounts(SEED, WORDS))), undefined, 'exactly once over both directories');
});
