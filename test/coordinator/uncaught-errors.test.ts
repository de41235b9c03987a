// In-thread mode (`weir run` without worker TaskManagers): an exception thrown by user code in a
// timer, or a promise it rejects without a handler, must not end the process with Node's bare
// stack trace: it fails the attempt, the restart strategy restarts the job as it would after a
// worker thread crashed, and the output stays exactly-once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts } from '../fixtures/savepoint-helpers.ts';
import { weir, weirEnv } from '../fixtures/weir-process.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'async-throw.ts');
const WORDS = 20_000;
const SEED = 9;

const cases: Array<[string, string, RegExp]> = [
  ['an exception thrown in a timer', 'timer', /an uncaught exception in the job's code: boom in a timer/],
  ['a promise rejected without a handler', 'promise', /an unhandled promise rejection in the job's code: boom in a promise/],
];

for (const [what, raise, expected] of cases) {
  test(`in-thread: ${what} restarts the job through the restart strategy; output exactly-once`, { timeout: 60_000 }, async (t) => {
    const dir = makeTempDir('uncaught');
    t.after(() => removeDir(dir));
    const output = join(dir, 'out');
    const r = await weir(
      ['run', JOB, '-D', 'restart-strategy.type=fixed-delay', '-D', 'restart-strategy.fixed-delay.attempts=2', '-D', 'restart-strategy.fixed-delay.delay=100 ms', '--', '--output', output, '--raise', raise, '--words', String(WORDS), '--seed', String(SEED)],
      weirEnv(dir),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /restarting \(attempt 1\)/);
    assert.match(r.stderr, expected);
    assert.match(r.stderr, /FINISHED in .*, 1 restart\b/);
    assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
  });
}
