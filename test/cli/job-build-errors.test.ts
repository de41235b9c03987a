// `weir run` of a job module whose builder throws: stderr names the module, says it threw while
// building the job and where in the module; in this thread and in worker-thread TaskManagers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../fixtures/recovery-helpers.ts';

const MODULE = join(REPO_ROOT, 'test/fixtures/jobs/throws-while-building.ts');

function weirRun(args: readonly string[]) {
  return spawnSync(process.execPath, ['bin/weir.mjs', 'run', 'test/fixtures/jobs/throws-while-building.ts', ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 60_000 });
}

test('a builder that throws: the module, "while building the job" and its line, exit code 2, no job started', () => {
  const r = weirRun([]);
  assert.equal(r.status, 2, r.stderr);
  assert.ok(
    r.stderr.includes(`weir: job module ${MODULE}: threw while building the job: RangeError: fixture builder fails: --window must be positive (at ${MODULE}:9:`),
    r.stderr,
  );
  assert.doesNotMatch(r.stdout, /Job ID/);
});

test('a builder that throws only in a worker-thread TaskManager: the job fails with the same facts and the thread', () => {
  const r = weirRun(['--task-managers', '1', '--', '--in-workers']);
  assert.equal(r.status, 1, r.stderr);
  assert.match(r.stderr, /Job [0-9a-f]{32} FAILED/);
  assert.ok(
    r.stderr.includes(`Cause: job module ${MODULE}: threw while building the job in TaskManager 0 (worker thread): RangeError: fixture builder fails: --window must be positive (at ${MODULE}:9:`),
    r.stderr,
  );
});
