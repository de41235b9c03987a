// `_metadata` written to a nearly full checkpoint disk (a 1 MiB tmpfs in a mount namespace of the
// test's own, filled to one free page): the write is short, so the checkpoint must decline (not
// complete), the retained checkpoint must stay readable, and a job restored from it must give
// exactly-once output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mountNamespaceUnavailable, runScenario } from '../fixtures/mount-namespace.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const SCENARIO = join(import.meta.dirname, '..', 'fixtures', 'scenarios', 'nearly-full-checkpoint-disk.ts');

test('a short _metadata write declines the checkpoint; the previous one is kept and restores exactly-once', { timeout: 120_000 }, async (t) => {
  const unavailable = mountNamespaceUnavailable();
  if (unavailable) return t.skip(unavailable);
  const root = makeTempDir('metadata-full');
  t.after(() => removeDir(root));
  const { result: r } = await runScenario<{
    shortMetadataFailures: number;
    firstReason: string;
    failedIds: number[];
    retainedId: number;
    completedAfterFirstFailure: number[];
    metadataOk: true | string;
    checkpointDirsLeft: string[];
    restoredStatus: string;
    diff: string | null;
  }>(SCENARIO, [root], 100_000);
  t.diagnostic(`declined: ${r.firstReason}`);
  assert.ok(r.shortMetadataFailures >= 2, 'checkpoints failed on a short _metadata write');
  assert.match(r.firstReason, /failed after (\d+) of (\d+) bytes: ENOSPC/);
  const [, written, total] = /failed after (\d+) of (\d+) bytes/.exec(r.firstReason)!;
  assert.ok(Number(written) > 0 && Number(written) < Number(total), `the write was short (${written} of ${total} bytes), not refused outright`);
  assert.ok(r.failedIds.every((id) => id > r.retainedId), 'the retained checkpoint is older than the failed ones');
  assert.deepEqual(r.completedAfterFirstFailure, [], 'no checkpoint completed while the disk was full');
  assert.equal(r.metadataOk, true, 'the retained checkpoint reads back whole');
  for (const id of r.failedIds) assert.ok(!r.checkpointDirsLeft.includes(`chk-${id}`), `the files of failed checkpoint ${id} were removed`);
  assert.ok(r.checkpointDirsLeft.includes(`chk-${r.retainedId}`));
  assert.equal(r.restoredStatus, 'FINISHED', 'a job restored from the retained checkpoint finishes');
  assert.equal(r.diff, null, `its committed output is exactly every record once: ${r.diff}`);
});
