// How the CLI names the JobManager it asked: by -m, by the job's registration, or the default
// 127.0.0.1:8081 (which answers `404 job not found` for a job that runs on another one).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_JOBMANAGER, JobManagerError, locateJobManager, namingJobManager } from '../../src/cli/rest-client.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const JOB = '0123456789abcdef0123456789abcdef';
const notFound = (base: string) => new JobManagerError(base, `POST /jobs/${JOB}/savepoints: 404 job ${JOB} not found`, 404);

test('without -m and without a registration, the default JobManager is asked, and a 404 from it says so and suggests -m', () => {
  const home = makeTempDir('rest-client');
  const before = process.env.WEIR_HOME;
  process.env.WEIR_HOME = home;
  try {
    const at = locateJobManager(JOB, undefined);
    assert.deepEqual(at, { base: DEFAULT_JOBMANAGER, source: 'default' });
    const e = namingJobManager(notFound(at.base), at) as JobManagerError;
    assert.ok(e instanceof JobManagerError);
    assert.equal(e.status, 404);
    assert.equal(e.address, 'http://127.0.0.1:8081');
    assert.equal(
      e.message,
      `POST /jobs/${JOB}/savepoints: 404 job ${JOB} not found (asked the JobManager at http://127.0.0.1:8081, the default (no -m given, and no weir run of this job registered on this machine); pass -m host:port of the job's JobManager)`,
    );
    assert.ok(e.cause instanceof JobManagerError, 'the answer is kept as the cause');
  } finally {
    if (before === undefined) delete process.env.WEIR_HOME;
    else process.env.WEIR_HOME = before;
    removeDir(home);
  }
});

test('-m is named as such; an unreachable JobManager keeps its own message, which already names the address', () => {
  const at = locateJobManager(JOB, 'jm.example:8081');
  assert.deepEqual(at, { base: 'http://jm.example:8081', source: 'flag' });
  assert.match((namingJobManager(notFound(at.base), at) as Error).message, /not found \(asked the JobManager at http:\/\/jm\.example:8081 \(-m\)\)$/);
  const unreachable = new JobManagerError(at.base, 'no JobManager answers at http://jm.example:8081 (ECONNREFUSED); is the job running? pass --jobmanager host:port');
  assert.equal(namingJobManager(unreachable, at), unreachable);
});
