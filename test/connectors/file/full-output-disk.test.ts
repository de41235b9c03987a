// A FileSink whose output disk fills up mid-run (a 1 MiB tmpfs in a mount namespace of the test's
// own): a short write must fail the write, never commit a file with records missing; the job
// restarts until the disk is enlarged and then finishes with exactly-once output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mountNamespaceUnavailable, runScenario } from '../../fixtures/mount-namespace.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';

const SCENARIO = join(import.meta.dirname, '..', '..', 'fixtures', 'scenarios', 'full-output-disk.ts');

test('a full output disk: writes fail whole, nothing committed is lost, output is exactly-once after the disk is enlarged', { timeout: 120_000 }, async (t) => {
  const unavailable = mountNamespaceUnavailable();
  if (unavailable) return t.skip(unavailable);
  const root = makeTempDir('full-output');
  t.after(() => removeDir(root));
  const { result: r } = await runScenario<{
    status: string;
    fullDiskRestarts: number;
    firstCause: string;
    committedWhileFull: number;
    committed: number;
    expected: number;
    diff: string | null;
    midLine: string[];
  }>(SCENARIO, [root], 100_000);
  t.diagnostic(`first failure: ${r.firstCause}`);
  t.diagnostic(`${r.committedWhileFull} lines committed while the disk was full; ${r.committed} in the end`);
  assert.equal(r.status, 'FINISHED');
  assert.ok(r.fullDiskRestarts >= 2, 'the disk filled up and the job restarted');
  assert.match(r.firstCause, /FileWriteError: writing \S+\.inprogress at byte \d+ failed after \d+ of \d+ bytes: ENOSPC/);
  assert.ok(r.committedWhileFull > 0 && r.committedWhileFull < r.expected, 'output was committed before the disk filled up, not all of it');
  assert.equal(r.diff, null, `committed output is exactly the running counts: ${r.diff}`);
  assert.deepEqual(r.midLine, [], 'no committed file ends in the middle of a line');
});
