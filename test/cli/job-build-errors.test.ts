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

test('a graph that depends on Math.random(), at parallelism 2 on worker-thread TaskManagers: FAILED at once with the fingerprint message, no restart', async () => {
  // A restart strategy that would restart 10 times: a different graph is the module's, so no restart can mend it.
  const restarts = ['-D', 'execution.checkpointing.interval=1 s', '-D', 'restart-strategy.type=fixed-delay', '-D', 'restart-strategy.fixed-delay.attempts=10', '-D', 'restart-strategy.fixed-delay.delay=100 ms'];
  const r = await weir(['run', 'test/fixtures/jobs/random-graph.ts', '-p', '2', '--task-managers', '2', '-D', 'rest.port=0', ...restarts]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /Job [0-9a-f]{32} FAILED in [^,\n]+\n/, 'FAILED, and the line counts no restart');
  assert.match(r.stderr, /Cause: .*TaskManager [01] built a different job graph from the job module \(fingerprint [0-9a-f]{16}, JobMaster has [0-9a-f]{16}\): the job's default export must build the same graph every time it runs/);
  assert.doesNotMatch(r.stderr, /restarting \(attempt/);
});
