// Running, failing and cancelling jobs through the JobMaster, and job modules that cannot be used.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createJobMaster,
  defineJob,
  executeJob,
  JobBuildError,
  JobFailure,
  JobModuleError,
  keyGroupFor,
  operatorIndexForKeyGroup,
  type JobResult,
  type JobStatus,
  type Sink,
  type SinkWriter,
} from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import failingJob from '../fixtures/jobs/failing.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import { DiscardSink, uniqueId } from '../fixtures/helpers.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/jobs/${name}`, import.meta.url));
const NO_RESTART = { 'restart-strategy.type': 'none' };

/** The job failed, and its error names the operator, its uid, the subtask and the cause. */
function assertOperatorFailure(result: JobResult, facts: { operator: string; uid: string; subtask: RegExp | string; cause: string }): JobFailure {
  assert.equal(result.status, 'FAILED');
  const error = result.error;
  assert.ok(error instanceof JobFailure, `a JobFailure, got ${String(error)}`);
  const m = error.message;
  assert.ok(m.includes(`'${facts.operator}'`), `names the operator: ${m}`);
  assert.ok(m.includes(facts.uid), `names the uid: ${m}`);
  if (typeof facts.subtask === 'string') assert.ok(m.includes(facts.subtask), `names the subtask (${facts.subtask}): ${m}`);
  else assert.match(m, facts.subtask);
  assert.ok(m.includes(facts.cause), `names the cause: ${m}`);
  assert.equal(error.causeInfo.operator, facts.operator);
  assert.equal(error.causeInfo.uid, facts.uid);
  return error;
}

describe('a failing operator', { timeout: 60_000 }, () => {
  const failAt = 42;
  // The failing map runs behind keyBy(i => i): the record lands on the subtask owning its key group.
  const subtask = operatorIndexForKeyGroup(keyGroupFor(failAt, 128), 3, 128);

  test('fails the job with the operator, uid, subtask and cause (in this thread)', async () => {
    const result = await executeJob({ job: failingJob, args: ['--fail-at', String(failAt)], config: NO_RESTART });
    const error = assertOperatorFailure(result, { operator: 'Explode', uid: 'exploder', subtask: `subtask ${subtask + 1}/3`, cause: `RangeError: bad record ${failAt}` });
    assert.equal(error.causeInfo.subtask, subtask);
    assert.equal(result.restarts, 0);
  });

  test('fails the job with the same facts on worker TaskManagers', async () => {
    const result = await executeJob({ job: fixture('failing.ts'), args: ['--fail-at', String(failAt)], config: NO_RESTART, taskManagers: 2 });
    const error = assertOperatorFailure(result, { operator: 'Explode', uid: 'exploder', subtask: `subtask ${subtask + 1}/3`, cause: `RangeError: bad record ${failAt}` });
    assert.equal(error.causeInfo.subtask, subtask);
  });

  test('a failure in open() names the operator too', async () => {
    const job = defineJob((env) => {
      env.setParallelism(2);
      env
        .fromSource(DataGen.sequence(0, 10), { uid: 'src' })
        .keyBy((x) => x)
        .process({
          open() {
            throw new Error('cannot open the database');
          },
          processElement() {},
        }, { name: 'Opener', uid: 'opener' })
        .sinkTo(new DiscardSink());
    });
    const result = await executeJob({ job, config: NO_RESTART });
    assertOperatorFailure(result, { operator: 'Opener', uid: 'opener', subtask: /subtask [12]\/2/, cause: 'cannot open the database' });
  });

  test('a failing sink writer names the sink', async () => {
    const job = defineJob((env) => {
      env.fromSource(DataGen.sequence(0, 100), { uid: 'src' }).sinkTo(
        {
          createWriter: () => ({
            write(v: number) {
              if (v === 77) throw new TypeError('disk full');
            },
          }),
        } satisfies Sink<number>,
        { name: 'Sink: fragile', uid: 'fragile' },
      );
    });
    const result = await executeJob({ job, config: NO_RESTART });
    assertOperatorFailure(result, { operator: 'Sink: fragile', uid: 'fragile', subtask: 'subtask 1/1', cause: 'TypeError: disk full' });
  });

  test('a failed job leaves no collect channel open behind it', async () => {
    const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    const before = ports();
    const job = defineJob((env) => {
      env.setParallelism(2);
      env
        .fromSource(DataGen.sequence(0, 2000), { uid: 'src' })
        .map((x) => {
          if (x === 1500) throw new Error('late failure');
          return x;
        }, { name: 'Late', uid: 'late' })
        .sinkTo(new CollectSink<number>(uniqueId('failed')), { uid: 'sink' });
    });
    const result = await executeJob({ job, config: NO_RESTART });
    assert.equal(result.status, 'FAILED');
    // An open BroadcastChannel in an aborted writer would keep this process alive for ever.
    assert.equal(ports(), before, `resources left: ${process.getActiveResourcesInfo()}`);
  });

  test('with restarts allowed, the job restarts as often as the strategy says, then fails', async () => {
    const statuses: JobStatus[] = [];
    const restarts: number[] = [];
    const master = await createJobMaster({
      job: failingJob,
      args: ['--fail-at', '5', '--n', '50'],
      config: { 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 2, 'restart-strategy.fixed-delay.delay': 0 },
      listener: { onStatus: (s) => statuses.push(s), onRestart: (info) => restarts.push(info.attempt) },
    });
    const result = await master.run();
    assert.equal(result.status, 'FAILED');
    assert.equal(result.restarts, 2);
    assert.match(result.error!.message, /after 2 restarts/);
    assert.match(result.error!.message, /bad record 5/);
    assert.deepEqual(restarts, [1, 2]);
    assert.equal(master.exceptions.length, 3);
    assert.deepEqual(master.exceptions.map((e) => e.restarted), [true, true, false]);
    // The third failure is not restarted: the job goes to FAILED without showing RESTARTING.
    assert.deepEqual(statuses, ['RUNNING', 'RESTARTING', 'RUNNING', 'RESTARTING', 'RUNNING', 'FAILED']);
    // Cancelled subtasks say so, also those that had reached the end of their input when the
    // cancel came.
    const last = master.taskStatuses().map((t) => t.status);
    assert.ok(last.every((s) => s === 'canceled' || s === 'failed'), `statuses of the last attempt: ${last}`);
    assert.ok(result.durationMs < 1000, `two restarts without delay took ${result.durationMs} ms`);
  });
});

describe('job lifecycle', { timeout: 60_000 }, () => {
  test('a bounded job finishes: every subtask finished, writers closed once', async () => {
    const calls: string[] = [];
    const job = defineJob((env) => {
      env.setParallelism(2);
      env.fromSource(DataGen.sequence(0, 1000), { uid: 'src' }).keyBy((x) => x % 7).sum(undefined, { uid: 'sum' }).sinkTo(
        {
          createWriter: (ctx) => ({
            write() {},
            flush: () => void calls.push(`flush ${ctx.subtaskIndex}`),
            close: () => void calls.push(`close ${ctx.subtaskIndex}`),
            abort: () => void calls.push(`abort ${ctx.subtaskIndex}`),
          }),
        } satisfies Sink<number>,
        { uid: 'sink' },
      );
    });
    const statuses: JobStatus[] = [];
    const master = await createJobMaster({ job, listener: { onStatus: (s) => statuses.push(s) } });
    const result = await master.run();
    assert.equal(result.status, 'FINISHED', result.error?.message);
    assert.equal(result.error, undefined);
    assert.deepEqual(statuses, ['RUNNING', 'FINISHED']);
    assert.ok(master.taskStatuses().length === 4 && master.taskStatuses().every((t) => t.status === 'finished'), JSON.stringify(master.taskStatuses()));
    assert.deepEqual(calls.sort(), ['close 0', 'close 1', 'flush 0', 'flush 1']);
  });

  test('cancel() ends an unbounded job: CANCELED, writers aborted, nothing closed', async () => {
    const calls: string[] = [];
    let firstWrite!: () => void;
    const writing = new Promise<void>((r) => (firstWrite = r));
    const job = defineJob((env) => {
      env.fromSource(DataGen.of((i) => i), { uid: 'endless' }).sinkTo(
        {
          createWriter: (): SinkWriter<number> => ({
            write: () => firstWrite(),
            close: () => void calls.push('close'),
            abort: () => void calls.push('abort'),
          }),
        } satisfies Sink<number>,
        { uid: 'sink' },
      );
    });
    const master = await createJobMaster({ job });
    const run = master.run();
    await writing;
    assert.equal(master.status, 'RUNNING');
    const cancelled = await master.cancel();
    assert.equal(cancelled.status, 'CANCELED');
    assert.equal((await run).status, 'CANCELED');
    assert.deepEqual(calls, ['abort']);
  });
});

describe('cancel() while the job is still starting', { timeout: 60_000 }, () => {
  const workerPorts = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;

  test('in this thread: nothing is deployed and the job stays CANCELED', async () => {
    let writers = 0;
    const job = defineJob((env) => {
      env.fromSource(DataGen.of((i) => i), { uid: 'endless' }).sinkTo({ createWriter: () => (writers++, { write() {} }) } satisfies Sink<number>, { uid: 'sink' });
    });
    const statuses: JobStatus[] = [];
    const master = await createJobMaster({ job, listener: { onStatus: (s) => statuses.push(s) } });
    const run = master.run();
    assert.equal((await master.cancel()).status, 'CANCELED');
    assert.equal((await run).status, 'CANCELED');
    assert.equal(master.status, 'CANCELED');
    assert.deepEqual(statuses, ['CANCELED']);
    assert.equal(writers, 0, 'no subtask was started');
  });

  test('on worker TaskManagers: the threads that were starting are stopped', async () => {
    const before = workerPorts();
    const master = await createJobMaster({ job: fixture('backpressure.ts'), taskManagers: 2 });
    const run = master.run();
    // Cancel once the worker threads exist, well before they have loaded the job (no event says so).
    const deadline = performance.now() + 5000;
    while (workerPorts() === before && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
    assert.ok(workerPorts() > before, 'worker threads were started');
    assert.notEqual(master.status, 'RUNNING', 'still starting');
    assert.equal((await master.cancel()).status, 'CANCELED');
    assert.equal((await run).status, 'CANCELED');
    assert.equal(master.status, 'CANCELED');
    // A worker thread left running would keep this process alive for ever; stopped ones let go
    // of their ports within moments.
    const until = performance.now() + 5000;
    while (workerPorts() > before && performance.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.equal(workerPorts(), before, `resources left: ${process.getActiveResourcesInfo()}`);
  });
});

describe('job modules that cannot be used', () => {
  test('a missing file is a JobModuleError naming the file', async () => {
    const path = 'test/fixtures/jobs/does-not-exist.ts';
    await assert.rejects(executeJob({ job: path }), (e: unknown) => {
      assert.ok(e instanceof JobModuleError, String(e));
      assert.equal(e.modulePath, resolve(path));
      assert.ok(e.message.includes(resolve(path)), e.message);
      assert.match(e.message, /not found/);
      return true;
    });
  });

  test('a default export that is not a job is a JobModuleError that says what to write', async () => {
    const path = fixture('not-a-job.ts');
    await assert.rejects(executeJob({ job: path, taskManagers: 1 }), (e: unknown) => {
      assert.ok(e instanceof JobModuleError, String(e));
      assert.equal(e.modulePath, path);
      assert.ok(e.message.includes(path), e.message);
      assert.match(e.message, /default export is not a job/);
      assert.match(e.message, /defineJob/);
      return true;
    });
  });

  test('a module that throws on import is a JobModuleError with the cause', async () => {
    const path = fixture('throws-on-load.ts');
    await assert.rejects(executeJob({ job: path }), (e: unknown) => {
      assert.ok(e instanceof JobModuleError, String(e));
      assert.ok(e.message.includes(path), e.message);
      assert.match(e.message, /fixture module fails on import/);
      assert.ok(e.cause instanceof Error);
      return true;
    });
  });

  test('a module whose builder throws is a JobBuildError naming the module and the line in it, with the cause', async () => {
    const path = fixture('throws-while-building.ts');
    await assert.rejects(executeJob({ job: path }), (e: unknown) => {
      assert.ok(e instanceof JobBuildError, String(e));
      assert.ok(e instanceof JobModuleError, 'a kind of JobModuleError');
      assert.equal(e.modulePath, path);
      assert.ok(e.location?.startsWith(`${path}:9:`), `the builder's line in the module: ${e.location}`);
      assert.ok(e.message.startsWith(`job module ${path}: threw while building the job: RangeError: fixture builder fails: --window must be positive (at ${e.location})`), e.message);
      assert.ok(e.cause instanceof RangeError);
      return true;
    });
  });

  test('a builder that throws only in worker TaskManagers: the job fails with the same error, naming the thread', async () => {
    const path = fixture('throws-while-building.ts');
    const result = await executeJob({ job: path, taskManagers: 1, args: ['--in-workers'], config: NO_RESTART });
    assert.equal(result.status, 'FAILED');
    const m = result.error?.message ?? '';
    assert.ok(m.includes(`job module ${path}: threw while building the job in TaskManager 0 (worker thread): RangeError: fixture builder fails`), m);
    assert.match(m, /\(at .*throws-while-building\.ts:9:\d+\)/, 'the line in the module (source-mapped where the job was bundled)');
    assert.match(result.error?.stack ?? '', /Caused by: RangeError: fixture builder fails/, 'the cause crosses the thread in the stack');
  });

  test('worker TaskManagers need a module path, not a definition', async () => {
    await assert.rejects(executeJob({ job: failingJob, taskManagers: 2 }), (e: unknown) => e instanceof TypeError && /module path/.test(e.message));
  });

  test('an error thrown by the job builder comes back as it is', async () => {
    const job = defineJob(() => {
      throw new RangeError('--window must be positive');
    });
    await assert.rejects(executeJob({ job }), (e: unknown) => e instanceof RangeError && e.message === '--window must be positive');
  });
});
