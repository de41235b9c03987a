// A FileSink job restored from a retained checkpoint with another output directory (`weir run -s`
// with a new --output): the part files the checkpoint names (open ones at their recorded length,
// pending ones) are committed where they were written and the job goes on in the new directory,
// exactly once over both; when the old directory is gone, the restore fails at once naming both
// directories. Never a restart loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readSnapshot } from '../../../src/checkpoint/snapshot-reader.ts';
import { completeCheckpoints, diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../../fixtures/savepoint-helpers.ts';
import { completedCheckpoints, startWeirRun, weir, weirEnv } from '../../fixtures/weir-process.ts';

const WORDS = 20_000;
const SEED = 11;
/** A strategy that would restart 10 times: a failure a restart cannot mend must not use it. */
const RESTARTS = ['-D', 'restart-strategy.type=fixed-delay', '-D', 'restart-strategy.fixed-delay.attempts=10', '-D', 'restart-strategy.fixed-delay.delay=100 ms'];

/** The hidden file a committable names (a plain name: what weirs before absolute committables wrote), and the length an open one had. */
function hiddenFile(c: unknown): { name: string; length?: number } {
  return typeof c === 'string' ? { name: c } : (c as { name: string; length?: number });
}

/** `.part-X.pending` or `.part-X.inprogress` -> `part-X`. */
function visibleName(hidden: string): string {
  return hidden.slice(1, hidden.lastIndexOf('.'));
}

test('FileSink restored with another output directory: the part files its checkpoint names commit where they were written, or it fails at once naming both', { timeout: 120_000 }, async (t) => {
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

  // The part files it names: open ones (the default rolling policy keeps a file open across
  // checkpoints) with their recorded length, and pending ones, as a kill between the checkpoint's
  // completion and its commit leaves them (the kill lands there only sometimes: the files it had
  // committed are made pending again).
  const snapshot = await readSnapshot(latest.dir);
  const sink = snapshot.operators.find((o) => o.uid === 'sink');
  const named = (sink?.operator['_sink-committables']?.values ?? []).flatMap((p) => (p as { committables: unknown[] }).committables.map(hiddenFile));
  assert.ok(named.length > 0, 'the checkpoint names part files');
  // An open file is named by every checkpoint since it was opened (the latest one's length is the
  // longest), and once rolled as pending (then it is committed whole).
  const parts = new Map<string, { name: string; length?: number }>();
  for (const f of named) {
    const seen = parts.get(visibleName(f.name));
    if (!seen || (seen.length !== undefined && (f.length === undefined || f.length > seen.length))) parts.set(visibleName(f.name), f);
  }
  for (const [visible, f] of parts) {
    if (f.length === undefined && existsSync(join(first, visible))) renameSync(join(first, visible), join(first, f.name));
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
  for (const [visible, f] of parts) {
    assert.ok(existsSync(join(first, visible)), `${f.name} committed in ${first}`);
    assert.ok(!existsSync(join(first, f.name)), `${f.name} no longer hidden`);
    if (f.length !== undefined) assert.equal(statSync(join(first, visible)).size, f.length, `${f.name} cut back to the length its checkpoint recorded`);
  }
  const lines = [...readCommittedLines(first), ...readCommittedLines(second)].sort();
  assert.ok(readCommittedLines(second).length > 0, 'the resumed job wrote to the new directory');
  assert.equal(diffSortedLines(lines, expectedRunningCounts(wordCounts(SEED, WORDS))), undefined, 'exactly once over both directories');
});
