// The lmdb state backend on a local directory that fills up mid-run (a 1 MiB tmpfs in a mount
// namespace of the test's own): the task fails with a LocalStateStorageError that names the
// store's path, the OS error and the free space; the job recovers from its last checkpoint, again
// and again while the disk stays full, and once it is enlarged finishes with exactly-once output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mountNamespaceUnavailable, runScenario } from '../../fixtures/mount-namespace.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';

const SCENARIO = join(import.meta.dirname, '..', '..', 'fixtures', 'scenarios', 'full-state-disk.ts');

test('a full local state disk: the task fails naming the store and the free space, the job recovers, output exactly-once after the disk is enlarged', { timeout: 120_000 }, async (t) => {
  const unavailable = mountNamespaceUnavailable();
  if (unavailable) return t.skip(unavailable);
  const root = makeTempDir('full-state');
  t.after(() => removeDir(root));
  const { result: r } = await runScenario<{
    status: string;
    error: string | null;
    fullDiskRestarts: number;
    firstCause: string;
    otherCauses: string[];
    localDir: string;
    committedWhileFull: number;
    committed: number;
    expected: number;
    diff: string | null;
  }>(SCENARIO, [root], 100_000);
  t.diagnostic(`first failure: ${r.firstCause}`);
  assert.equal(r.status, 'FINISHED', `the job ended ${r.status}: ${r.error}`);
  assert.ok(r.fullDiskRestarts >= 2, 'the disk filled up and the job restarted');
  assert.deepEqual(r.otherCauses, [], 'no restart for another reason');
  assert.match(r.firstCause, /LocalStateStorageError: lmdb state backend of operator uid 'counts': writing to the local store at \S+ failed: .+; \d+ bytes are free on its filesystem; the disk is full: make room there or set state.backend.lmdb.localdir to a larger disk/);
  assert.ok(r.firstCause.includes(r.localDir), `the failure names a store under ${r.localDir}`);
  assert.ok(r.expected > 0 && r.committed === r.expected, `all ${r.expected} lines committed in the end (${r.committed})`);
  assert.equal(r.diff, null, `committed output is exactly the running counts: ${r.diff}`);
});
