// A job's errors on a cluster name the user's file and line: the JobManager and the TaskManagers
// load the job as a bundle (weir-bundles/<hash>.mjs), whose source map leads stacks back to the
// module the user wrote, for a builder that throws and for a record that throws at run time.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTempDir, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';
import { spawnWeir, weir } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('cluster-stacks');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'jobs');

test("errors of a job on a cluster: the builder's and the record's stacks name the user's file and line", { timeout: 180_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'restart-strategy.type': 'none' } });
  await cluster.startJobManager();
  await cluster.startTaskManager({ slots: 1 });

  const building = join(FIXTURES, 'throws-while-building.ts');
  const thrown = await weir(['run', building, '-m', cluster.address], cluster.env);
  assert.equal(thrown.code, 2, thrown.stderr);
  assert.ok(thrown.stderr.includes(`threw while building the job: RangeError: fixture builder fails: --window must be positive (at ${building}:9:`), thrown.stderr);

  const failing = join(FIXTURES, 'failing.ts');
  const run = spawnWeir(['run', failing, '-m', cluster.address, '--', '--fail-at', '5', '--parallelism', '1', '--n', '100'], cluster.env);
  const jobId = await run.jobId();
  assert.equal(await run.finished(120_000), 1, run.tail());
  const response = await fetch(`http://${cluster.address}/jobs/${jobId}/exceptions`);
  const view = (await response.json()) as { exceptionHistory: { entries: Array<{ stacktrace: string }> } };
  const stack = view.exceptionHistory.entries[0]?.stacktrace ?? '';
  assert.match(stack, /RangeError: bad record 5/, stack);
  assert.ok(stack.includes(`${failing}:13:`), `the map's line in the user's file:\n${stack}`);
  assert.doesNotMatch(stack, /weir-bundles/, stack);
});
