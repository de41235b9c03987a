// `weir run` of a job module whose builder throws: stderr names the module, says it threw while
// building the job and where in the module; in this thread and in worker-thread TaskManagers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { REPO_ROOT } from '../fixtures/recovery-helpers.ts';
import { weir } from '../fixtures/weir-process.ts';

const MODULE = join(REPO_ROOT, 'test/fixtures/jobs/throws-while-building.ts');

const weirRun = (args: readonly string[]) => weir(['run', 'test/fixtures/jobs/throws-while-building.ts', ...args]);

test('a builder that throws: the module, "while building the job" and its line, exit code 2, no job started', async () => {
  const r = await weirRun([]);
  assert.equal(r.code, 2, r.stderr);
  assert.ok(
    r.stderr.includes(`weir: job module ${MODULE}: threw while building the job: RangeError: fixture builder fails: --window must be positive (at ${MODULE}:9:`),
    r.stderr,
  );
  assert.doesNotMatch(r.stdout, /Job ID/);
});

test('a builder that throws only in a worker-thread TaskManager: the job fails with the same facts and the thread', async () => {
  const r = await weirRun(['--task-managers', '1', '--', '--in-workers']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /Job [0-9a-f]{32} FAILED/);
  assert.ok(
    r.stderr.includes(`Cause: job module ${MODULE}: threw while building the job in TaskManager 0 (worker thread): RangeError: fixture builder fails: --window must be positive (at ${MODULE}:9:`),
    r.stderr,
  );
});
