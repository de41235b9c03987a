// The CheckpointCoordinator on its own: a ManualClock, a fake CheckpointStorage, recorded calls to
// the sources and subtasks, and acknowledgements and declines fed in as the TaskManagers would
// send them. The job: Numbers (2 subtasks) -> rebalance -> Out (1 subtask), three acks per checkpoint.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckpointFailureReport, CheckpointFailureCode } from '../../src/checkpoint/checkpoint-failure-reason.ts';
import { buildConfig } from '../../src/config/configuration.ts';
import { CheckpointCoordinator } from '../../src/coordinator/checkpoint-coordinator.ts';
import type { TaskDescriptions } from '../../src/coordinator/checkpoint-coordinator-deps.ts';
import { CheckpointFailureError } from '../../src/coordinator/checkpoint-failure-error.ts';
import type { CompletedCheckpoint } from '../../src/coordinator/completed-checkpoint.ts';
import type { JobGraph, JobVertex } from '../../src/graph/job-graph.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { TaskMetrics } from '../../src/rpc/job-master-gateway.ts';
import type { CheckpointOptions } from '../../src/network/stream-event.ts';
import { FakeCheckpointStorage } from '../fixtures/fake-checkpoint-storage.ts';
import { ACK_FIGURES, numbersToOutGraph } from '../fixtures/numbers-to-out-graph.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

const T0 = 1_000_000;
let graph: JobGraph;
let numbers: JobVertex;
let out: JobVertex;

before(async () => {
  graph = await numbersToOutGraph();
  numbers = graph.vertices.find((v) => v.name === 'Numbers')!;
  out = graph.vertices.find((v) => v.name === 'Out')!;
  assert.equal(graph.vertices.length, 2);
});

const FIGURES = ACK_FIGURES;

function setup(settings: Record<string, unknown> = {}, o: { describeTasks?: () => Promise<TaskDescriptions>; publish?: (cp: CompletedCheckpoint) => Promise<void> } = {}) {
  const clock = new ManualClock(T0);
  const storage = new FakeCheckpointStorage();
  const triggered: Array<{ id: number; at: number; options: CheckpointOptions }> = [];
  const completed: number[] = [];
  const aborted: Array<{ id: number; reason: string }> = [];
  const failures: Array<{ id: number; failure: CheckpointFailureReport }> = [];
  const failJob: Error[] = [];
  const onCompleted: CompletedCheckpoint[] = [];
  let described = 0;
  const c = new CheckpointCoordinator({
    jobId: 'job-1',
    config: buildConfig(settings),
    jobGraph: graph,
    log: silentLogger,
    clock,
    storage,
    triggerSources: (id, timestamp, options) => {
      assert.equal(timestamp, clock.now(), 'triggered with the time of the trigger');
      triggered.push({ id, at: timestamp - T0, options });
    },
    notifyComplete: (id) => completed.push(id),
    notifyAborted: (id, reason) => aborted.push({ id, reason }),
    describeTasks: () => {
      described++;
      return o.describeTasks?.() ?? Promise.resolve({ tasks: [], silent: [] });
    },
    failJob: (e) => failJob.push(e),
    onCompleted: (cp) => onCompleted.push(cp),
    onFailed: (id, failure) => failures.push({ id, failure }),
    ...(o.publish ? { publish: o.publish } : {}),
  });

  const ack = (id: number, vertex: JobVertex, subtask: number) =>
    c.receiveAck({ attempt: 0, vertexId: vertex.id, subtask, checkpointId: id, state: { operators: [], inputChannels: {}, outputChannels: {} }, figures: FIGURES });
  const ackAll = (id: number) => {
    ack(id, numbers, 0);
    ack(id, numbers, 1);
    ack(id, out, 0);
  };
  const decline = (id: number, code: CheckpointFailureCode, reason = 'no can do') =>
    c.receiveDecline({ attempt: 0, vertexId: numbers.id, subtask: 1, checkpointId: id, code, reason });
  /** A checkpoint (or savepoint) triggered by hand; its result's rejection is handled, awaiting it still sees it. */
  const trigger = (type: 'checkpoint' | 'savepoint' = 'checkpoint') => {
    const result = c.trigger(type === 'savepoint' ? { type, targetDir: '/savepoints/sp-1', force: true } : { type });
    result.catch(() => {});
    return { id: triggered.at(-1)!.id, result };
  };
  const codes = () => failures.map((f) => [f.id, f.failure.code]);
  return { c, clock, storage, triggered, completed, aborted, failures, failJob, onCompleted, ack, ackAll, decline, trigger, codes, described: () => described };
}

const at = (t: Array<{ at: number }>) => t.map((x) => x.at);

describe('the periodic interval', () => {
  test('triggers at startScheduler() and then every interval as the clock moves, and none before it or after stopScheduler()', async () => {
    const { c, clock, triggered } = setup({ 'execution.checkpointing.interval': '100 ms', 'execution.checkpointing.max-concurrent-checkpoints': 100 });
    assert.equal(c.periodic, true);
    clock.advance(1000);
    assert.equal(triggered.length, 0, 'nothing before startScheduler()');
    await assert.rejects(c.trigger({ type: 'checkpoint' }), /the job is not running/);
    assert.equal(triggered.length, 0);

    c.startScheduler();
    clock.advance(0);
    assert.deepEqual(at(triggered), [1000]);
    clock.advance(99);
    assert.deepEqual(at(triggered), [1000]);
    clock.advance(1);
    assert.deepEqual(at(triggered), [1000, 1100]);
    clock.advance(250);
    assert.deepEqual(at(triggered), [1000, 1100, 1200, 1300]);
    assert.deepEqual(triggered.map((t) => t.id), [1, 2, 3, 4], 'numbered from 1');
    assert.deepEqual(triggered[0]!.options, { type: 'checkpoint', unaligned: false, alignedTimeout: 0, targetDir: '/fake/job/chk-1' });

    c.stopScheduler('job failover');
    clock.advance(10_000);
    assert.equal(triggered.length, 4, 'no trigger after stopScheduler()');
    assert.equal(c.pendingCount, 0, 'stopScheduler() aborts the pending ones');
  });

  test('an interval that is not set, or at-most-once, triggers nothing', () => {
    for (const settings of [{}, { 'execution.checkpointing.interval': '100 ms', 'execution.checkpointing.mode': 'at-most-once' }]) {
      const { c, clock, triggered } = setup(settings);
      assert.equal(c.periodic, false);
      c.startScheduler();
      clock.advance(100_000);
      assert.equal(triggered.length, 0);
    }
  });

  test('pauseScheduler() ends the triggers but lets a pending checkpoint complete', async () => {
    const { c, clock, triggered, completed, ackAll } = setup({ 'execution.checkpointing.interval': '100 ms' });
    c.startScheduler();
    clock.advance(0);
    c.pauseScheduler();
    clock.advance(1000);
    assert.equal(triggered.length, 1);
    assert.equal(c.pendingCount, 1);
    ackAll(1);
    await c.settled();
    assert.deepEqual(completed, [1]);
    clock.advance(1000);
    assert.equal(triggered.length, 1, 'a completion does not restart the periodic triggers');
  });
});

test('min-pause: the next trigger waits for min-pause after the last completion', async () => {
  const { c, clock, triggered, ackAll } = setup({ 'execution.checkpointing.interval': '100 ms', 'execution.checkpointing.min-pause': '300 ms' });
  c.startScheduler();
  clock.advance(0);
  clock.advance(50);
  ackAll(1);
  await c.settled(); // completed at +50
  clock.advance(299);
  assert.deepEqual(at(triggered), [0], 'not before +350, though the interval passed at +100');
  clock.advance(1);
  assert.deepEqual(at(triggered), [0, 350]);
  clock.advance(110); // +460: the interval passed at +450 with checkpoint 2 still pending
  assert.deepEqual(at(triggered), [0, 350]);
  ackAll(2);
  await c.settled(); // completed at +460
  clock.advance(299);
  assert.deepEqual(at(triggered), [0, 350]);
  clock.advance(1);
  assert.deepEqual(at(triggered), [0, 350, 760]);
});

test('max-concurrent-checkpoints: no periodic trigger while that many are pending; the next one comes when one completes', async () => {
  const { c, clock, triggered, ackAll } = setup({ 'execution.checkpointing.interval': '100 ms', 'execution.checkpointing.max-concurrent-checkpoints': 2 });
  c.startScheduler();
  clock.advance(0);
  clock.advance(100);
  assert.deepEqual(at(triggered), [0, 100]);
  clock.advance(900);
  assert.deepEqual(at(triggered), [0, 100], 'two pending: no third');
  assert.equal(c.pendingCount, 2);
  ackAll(1);
  await c.settled();
  assert.equal(c.pendingCount, 1, 'checkpoint 1 completed, 2 is newer and stays');
  clock.advance(0);
  assert.deepEqual(at(triggered), [0, 100, 1000], 'the interval is long past: at once');
  clock.advance(1000);
  assert.deepEqual(at(triggered), [0, 100, 1000]);
  assert.equal(c.pendingCount, 2);
});

test('max-concurrent-checkpoints 1: a failed checkpoint frees the slot too', async () => {
  const { c, clock, triggered, decline } = setup({ 'execution.checkpointing.interval': '100 ms', 'execution.checkpointing.tolerable-failed-checkpoints': 5 });
  c.startScheduler();
  clock.advance(0);
  clock.advance(500);
  assert.deepEqual(at(triggered), [0]);
  decline(1, 'TASK_CHECKPOINT_FAILURE');
  clock.advance(0);
  assert.deepEqual(at(triggered), [0, 500]);
});

describe('the timeout', () => {
  const report = (vertex: JobVertex, subtask: number, r: Pick<TaskMetrics, 'activity' | 'activitySince'> & { silent?: boolean }) => ({
    vertexId: vertex.id,
    subtask,
    recordsIn: 0,
    recordsOut: 0,
    backpressure: 0,
    idle: 0,
    bytesIn: 0,
    bytesOut: 0,
    inPoolUsage: 0,
    outPoolUsage: 0,
    reportedAt: T0,
    writing: [],
    silent: false,
    ...r,
  });

  test('a pending checkpoint expires at exactly the timeout, naming the subtasks that had not acknowledged and what they were doing', async () => {
    const s = setup(
      { 'execution.checkpointing.timeout': '2 s', 'execution.checkpointing.tolerable-failed-checkpoints': 5 },
      {
        describeTasks: async () => ({
          tasks: [
            report(numbers, 0, { activity: { kind: 'processing' }, activitySince: T0 }),
            report(numbers, 1, { activity: { kind: 'backpressured' }, activitySince: T0 - 3000 }),
            report(out, 0, { activity: { kind: 'aligning', checkpointId: 1, style: 'aligned', waitingFor: ["channel from 'Numbers' 2/2"], forMs: 1500 }, activitySince: T0 + 500 }),
          ],
          silent: [],
        }),
      },
    );
    s.c.startScheduler();
    const { result } = s.trigger();
    s.ack(1, numbers, 0);
    s.clock.advance(1999);
    assert.equal(s.described(), 0, 'not expired before the timeout');
    assert.equal(s.c.pendingCount, 1);
    s.clock.advance(1);
    assert.equal(s.described(), 1, 'expired at the timeout: asks what the subtasks are doing');
    const message =
      "checkpoint 1 expired after 2.00 s before completing: 2 of 3 subtasks had not acknowledged — 'Numbers' subtask 2/2: blocked on a full output channel (backpressure from downstream) for 5 s; 'Out' subtask 1/1: aligning checkpoint 1 for 1500 ms, waiting for the barrier on channel from 'Numbers' 2/2";
    await assert.rejects(result, (e: Error) => e.message === message);
    assert.equal(s.failures.length, 1);
    const f = s.failures[0]!.failure;
    assert.equal(f.code, 'CHECKPOINT_EXPIRED');
    assert.equal(f.message, message);
    assert.equal(f.at, T0 + 2000);
    assert.deepEqual(
      f.pending?.map((p) => [p.vertex, p.subtask, p.parallelism, p.isSource, p.silent, p.report?.activity.kind]),
      [
        ['Numbers', 1, 2, true, false, 'backpressured'],
        ['Out', 0, 1, false, false, 'aligning'],
      ],
    );
    assert.deepEqual(s.aborted, [{ id: 1, reason: message }], 'the subtasks are told');
    await s.c.inFlightSettled();
    assert.deepEqual(s.storage.discarded, ['/fake/job/chk-1'], 'its files go');
    assert.equal(s.c.pendingCount, 0);

    s.ack(1, numbers, 1);
    s.ack(1, out, 0);
    await s.c.settled();
    assert.equal(s.completed.length, 0, 'acknowledgements after the expiry complete nothing');
    assert.equal(s.storage.writeCalls.length, 0);
    assert.equal(s.failJob.length, 0);
  });

  test('the expiry names subtasks without a report and TaskManagers that did not answer', async () => {
    const s = setup(
      { 'execution.checkpointing.timeout': '30 s', 'execution.checkpointing.tolerable-failed-checkpoints': 5 },
      {
        describeTasks: async () => ({
          tasks: [report(numbers, 1, { activity: { kind: 'reading', reader: 'reading table orders' }, activitySince: T0 - 10_000, silent: true })],
          silent: [1],
        }),
      },
    );
    s.c.startScheduler();
    const { result } = s.trigger();
    s.ack(1, numbers, 0);
    s.clock.advance(30_000);
    await assert.rejects(result);
    assert.equal(
      s.failures[0]!.failure.message,
      "checkpoint 1 expired after 30.0 s before completing: 2 of 3 subtasks had not acknowledged — 'Numbers' subtask 2/2: reading table orders (for 40 s, as last reported: its TaskManager no longer answers, its thread is blocked); 'Out' subtask 1/1: no answer from its TaskManager (its thread may be blocked inside a synchronous call); TaskManager 1 did not answer",
    );
    assert.deepEqual(s.failures[0]!.failure.pending?.map((p) => p.silent), [true, true]);
  });

  test('describeTasks failing still expires the checkpoint', async () => {
    const s = setup({ 'execution.checkpointing.timeout': '1 s', 'execution.checkpointing.tolerable-failed-checkpoints': 5 }, { describeTasks: () => Promise.reject(new Error('pool gone')) });
    s.c.startScheduler();
    const { result } = s.trigger();
    s.clock.advance(1000);
    await assert.rejects(result, /3 of 3 subtasks had not acknowledged/);
    assert.deepEqual(s.codes(), [[1, 'CHECKPOINT_EXPIRED']]);
  });

  test('the last acknowledgement arriving while the expiry asks the subtasks wins: the checkpoint completes', async () => {
    let answer!: (d: TaskDescriptions) => void;
    const s = setup({ 'execution.checkpointing.timeout': '1 s' }, { describeTasks: () => new Promise((resolve) => (answer = resolve)) });
    s.c.startScheduler();
    const { result } = s.trigger();
    s.clock.advance(1000);
    assert.equal(s.described(), 1);
    s.ackAll(1);
    answer({ tasks: [], silent: [] });
    assert.equal((await result).id, 1);
    await s.c.inFlightSettled();
    assert.deepEqual(s.completed, [1]);
    assert.equal(s.failures.length, 0);
  });

  test('a completed checkpoint does not expire later', async () => {
    const s = setup({ 'execution.checkpointing.timeout': '1 s' });
    s.c.startScheduler();
    const { result } = s.trigger();
    s.ackAll(1);
    await result;
    s.clock.advance(5000);
    assert.equal(s.described(), 0);
    assert.equal(s.failures.length, 0);
    assert.equal(s.clock.pendingTimers, 0, 'its expiry timer was cancelled');
  });
});

describe('tolerable failed checkpoints', () => {
  test('with tolerable N, the (N+1)th consecutive counted failure fails the job with a CheckpointFailureError', async () => {
    const s = setup({ 'execution.checkpointing.tolerable-failed-checkpoints': 2, 'execution.checkpointing.timeout': '1 s' });
    s.c.startScheduler();
    s.trigger();
    s.decline(1, 'TASK_CHECKPOINT_FAILURE', 'disk full');
    const second = s.trigger();
    s.clock.advance(1000); // expires
    await assert.rejects(second.result, /expired/);
    assert.equal(s.failJob.length, 0, 'two failures are tolerated');
    s.trigger();
    s.decline(3, 'TASK_CHECKPOINT_FAILURE', 'disk still full');
    assert.deepEqual(s.codes(), [
      [1, 'TASK_CHECKPOINT_FAILURE'],
      [2, 'CHECKPOINT_EXPIRED'],
      [3, 'TASK_CHECKPOINT_FAILURE'],
    ]);
    assert.equal(s.failJob.length, 1, 'the third fails the job');
    const e = s.failJob[0]!;
    assert.ok(e instanceof CheckpointFailureError);
    assert.equal(e.checkpointId, 3);
    assert.equal(e.consecutiveFailures, 3);
    assert.match(e.message, /3 consecutive failures, execution\.checkpointing\.tolerable-failed-checkpoints is 2/);
    assert.match(e.message, /last: declined by 'Numbers' subtask 2: disk still full/);
  });

  test('tolerable 0: the first counted failure fails the job', () => {
    const s = setup();
    s.c.startScheduler();
    s.trigger();
    s.decline(1, 'TASK_CHECKPOINT_FAILURE');
    assert.equal(s.failJob.length, 1);
    assert.equal((s.failJob[0] as CheckpointFailureError).consecutiveFailures, 1);
  });

  test('a completed checkpoint resets the count', async () => {
    const s = setup({ 'execution.checkpointing.tolerable-failed-checkpoints': 1 });
    s.c.startScheduler();
    s.trigger();
    s.decline(1, 'TASK_CHECKPOINT_FAILURE');
    const ok = s.trigger();
    s.ackAll(2);
    await ok.result;
    s.trigger();
    s.decline(3, 'TASK_CHECKPOINT_FAILURE');
    assert.equal(s.failJob.length, 0, 'one failure since the completion: tolerated');
    s.trigger();
    s.decline(4, 'TASK_CHECKPOINT_FAILURE');
    assert.equal(s.failJob.length, 1);
    assert.equal((s.failJob[0] as CheckpointFailureError).consecutiveFailures, 2);
  });

  test('failures whose code does not count leave the count alone', () => {
    const s = setup({ 'execution.checkpointing.tolerable-failed-checkpoints': 1 });
    s.c.startScheduler();
    s.trigger();
    s.decline(1, 'TASK_CHECKPOINT_FAILURE');
    const notCounted: CheckpointFailureCode[] = ['CHECKPOINT_DECLINED_SUBSUMED', 'CHECKPOINT_DECLINED_TASK_NOT_READY', 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER', 'CHECKPOINT_SUBSUMED', 'CHECKPOINT_COORDINATOR_SUSPEND'];
    for (const code of notCounted) {
      const { id } = s.trigger();
      s.decline(id, code);
    }
    assert.equal(s.failJob.length, 0, `none of ${notCounted.join(', ')} counts`);
    assert.deepEqual(s.codes().map(([, code]) => code), ['TASK_CHECKPOINT_FAILURE', ...notCounted]);
    const { id } = s.trigger();
    s.decline(id, 'TASK_CHECKPOINT_FAILURE');
    assert.equal(s.failJob.length, 1, 'the second counted failure in a row fails the job');
  });

  test('failed savepoints do not count', async () => {
    const s = setup({ 'execution.checkpointing.timeout': '1 s' });
    s.c.startScheduler();
    s.trigger('savepoint');
    s.decline(1, 'TASK_CHECKPOINT_FAILURE');
    const sp = s.trigger('savepoint');
    s.clock.advance(1000);
    await assert.rejects(sp.result, /expired/);
    assert.deepEqual(s.codes(), [
      [1, 'TASK_CHECKPOINT_FAILURE'],
      [2, 'CHECKPOINT_EXPIRED'],
    ]);
    assert.equal(s.failJob.length, 0, 'tolerable 0, yet no failover');
    assert.deepEqual(s.storage.discarded, ['/savepoints/sp-1', '/savepoints/sp-1'], "a failed savepoint's directory goes");
  });
});

describe('subsumption', () => {
  test('a newer checkpoint completing aborts older pending ones with CHECKPOINT_SUBSUMED, not counted', async () => {
    const s = setup();
    s.c.startScheduler();
    const first = s.trigger();
    const second = s.trigger();
    const third = s.trigger();
    s.ackAll(2);
    const cp = await second.result;
    assert.equal(cp.id, 2);
    await assert.rejects(first.result, /subsumed by checkpoint 2/);
    assert.deepEqual(s.codes(), [[1, 'CHECKPOINT_SUBSUMED']]);
    assert.deepEqual(s.aborted.map((a) => a.id), [1]);
    assert.deepEqual(s.completed, [2]);
    assert.equal(s.failJob.length, 0, 'tolerable 0, yet no failover');
    assert.equal(s.c.pendingCount, 1, 'the newer checkpoint 3 stays pending');
    s.ackAll(1);
    await s.c.settled();
    assert.deepEqual(s.completed, [2], 'acknowledgements of the aborted one are ignored');
    assert.deepEqual(s.storage.writeCalls, ['/fake/job/chk-2']);
    assert.ok(s.storage.discarded.includes('/fake/job/chk-1'));
    s.ackAll(3);
    await third.result;
    assert.deepEqual(s.completed, [2, 3]);
  });

  test('an older checkpoint fully acknowledged after a newer one is not completed', async () => {
    const s = setup({ 'execution.checkpointing.num-retained': 3 });
    s.c.startScheduler();
    const first = s.trigger();
    const second = s.trigger();
    s.storage.hold();
    const writing = s.storage.nextHeldWrite();
    s.ackAll(2);
    assert.equal(await writing, '/fake/job/chk-2', "checkpoint 2 is writing its _metadata");
    s.ackAll(1); // all of 1 is in before 2 has completed
    s.storage.release();
    assert.equal((await second.result).id, 2);
    await assert.rejects(first.result, /subsumed by checkpoint 2, which completed first/);
    await s.c.settled();
    assert.deepEqual(s.codes(), [[1, 'CHECKPOINT_SUBSUMED']]);
    assert.deepEqual(s.storage.writeCalls, ['/fake/job/chk-2'], 'no _metadata for checkpoint 1');
    assert.deepEqual(s.completed, [2]);
    assert.deepEqual(s.c.store.all().map((c) => c.id), [2]);
    assert.deepEqual(s.storage.discarded, ['/fake/job/chk-1']);
    assert.equal(s.failJob.length, 0);
  });

  test('a pending savepoint is not subsumed by a newer checkpoint', async () => {
    const s = setup();
    s.c.startScheduler();
    const sp = s.trigger('savepoint');
    const cp = s.trigger();
    s.ackAll(2);
    await cp.result;
    assert.equal(s.c.pendingCount, 1);
    s.ackAll(1);
    const savepoint = await sp.result;
    assert.equal(savepoint.type, 'savepoint');
    assert.equal(savepoint.directory, '/savepoints/sp-1');
    assert.deepEqual(s.completed, [2], 'a savepoint is not notified complete');
    assert.deepEqual(s.c.store.all().map((c) => c.id), [2], 'nor retained');
    assert.equal(s.failures.length, 0);
  });
});

describe('a failed _metadata write', () => {
  test('fails the checkpoint with FINALIZE_CHECKPOINT_FAILURE, counted; its location goes; nothing is notified complete', async () => {
    const s = setup();
    s.c.startScheduler();
    s.storage.failWrites = new Error('ENOSPC: no space left on device');
    const { result } = s.trigger();
    s.ackAll(1);
    await assert.rejects(result, /writing _metadata failed: ENOSPC/);
    await s.c.settled();
    assert.deepEqual(s.codes(), [[1, 'FINALIZE_CHECKPOINT_FAILURE']]);
    assert.equal(s.failJob.length, 1, 'counted: tolerable 0 fails the job');
    assert.ok(s.failJob[0] instanceof CheckpointFailureError);
    assert.deepEqual(s.storage.writeCalls, ['/fake/job/chk-1']);
    assert.deepEqual(s.storage.discarded, ['/fake/job/chk-1']);
    assert.equal(s.completed.length, 0);
    assert.equal(s.onCompleted.length, 0);
    assert.deepEqual(s.aborted.map((a) => a.id), [1]);
    assert.equal(s.c.store.all().length, 0);
  });

  test('the retained checkpoint stays when the next one cannot be written', async () => {
    const s = setup({ 'execution.checkpointing.tolerable-failed-checkpoints': 1 });
    s.c.startScheduler();
    const ok = s.trigger();
    s.ackAll(1);
    await ok.result;
    s.storage.failWrites = new Error('EIO');
    const bad = s.trigger();
    s.ackAll(2);
    await assert.rejects(bad.result, /EIO/);
    await s.c.settled();
    assert.deepEqual(s.c.store.all().map((c) => c.id), [1]);
    assert.deepEqual(s.storage.discarded, ['/fake/job/chk-2']);
    assert.deepEqual(s.completed, [1]);
    assert.equal(s.failJob.length, 0, 'one failure: tolerated');
  });
});

describe('publishing the pointer (high availability)', () => {
  test('the pointer is published after _metadata and before the subtasks are told the checkpoint is complete', async () => {
    const order: string[] = [];
    const s = setup({}, { publish: async (cp) => void order.push(`publish ${cp.id} after ${s.storage.writeCalls.length} write(s), ${s.completed.length} completed`) });
    s.c.startScheduler();
    const { result } = s.trigger();
    s.ackAll(1);
    await result;
    assert.deepEqual(order, ['publish 1 after 1 write(s), 0 completed']);
    assert.deepEqual(s.completed, [1]);
  });

  test('a rejected publish (leadership lost) does not complete the checkpoint: nothing commits, its files go', async () => {
    const s = setup({ 'execution.checkpointing.tolerable-failed-checkpoints': 5 }, { publish: () => Promise.reject(new Error('fenced: epoch 1 is older than 2')) });
    s.c.startScheduler();
    const { result } = s.trigger();
    s.ackAll(1);
    await assert.rejects(result, /publishing the checkpoint pointer failed: fenced: epoch 1/);
    await s.c.settled();
    assert.deepEqual(s.codes(), [[1, 'FINALIZE_CHECKPOINT_FAILURE']]);
    assert.deepEqual(s.completed, []);
    assert.equal(s.onCompleted.length, 0);
    assert.deepEqual(s.storage.discarded, ['/fake/job/chk-1']);
    assert.equal(s.c.store.all().length, 0);
  });
});

describe('stop(reason): the job has ended', () => {
  test('a fully acknowledged checkpoint not yet finalized is not completed, pending ones are aborted', async () => {
    const s = setup();
    s.c.startScheduler();
    const acked = s.trigger();
    const waiting = s.trigger();
    s.ackAll(1);
    await s.c.stop({ code: 'shutdown', detail: 'job canceled' });
    await assert.rejects(acked.result, /job canceled/);
    await assert.rejects(waiting.result, /job canceled/);
    assert.deepEqual(s.codes().sort(), [
      [1, 'CHECKPOINT_COORDINATOR_SUSPEND'],
      [2, 'CHECKPOINT_COORDINATOR_SUSPEND'],
    ]);
    assert.equal(s.storage.writeCalls.length, 0, 'no _metadata after stop');
    assert.equal(s.completed.length, 0);
    assert.equal(s.c.store.all().length, 0);
    assert.deepEqual(s.storage.discarded.sort(), ['/fake/job/chk-1', '/fake/job/chk-2']);
    assert.equal(s.failJob.length, 0);
  });

  test('a checkpoint whose _metadata is being written at stop is not completed', async () => {
    const s = setup();
    s.c.startScheduler();
    const { result } = s.trigger();
    s.storage.hold();
    const writing = s.storage.nextHeldWrite();
    s.ackAll(1);
    await writing;
    const stopped = s.c.stop({ code: 'shutdown', detail: 'job canceled' });
    s.storage.release();
    await stopped;
    await assert.rejects(result, /job canceled/);
    assert.deepEqual(s.codes(), [[1, 'CHECKPOINT_COORDINATOR_SUSPEND']]);
    assert.equal(s.completed.length, 0, 'no subtask is told to commit');
    assert.equal(s.onCompleted.length, 0);
    assert.equal(s.c.store.all().length, 0, 'nothing is retained for a job that is gone');
    assert.deepEqual(s.storage.discarded, ['/fake/job/chk-1']);
  });

  test('after stop nothing is triggered', async () => {
    const s = setup({ 'execution.checkpointing.interval': '100 ms' });
    s.c.startScheduler();
    s.clock.advance(0);
    await s.c.stop({ code: 'shutdown', detail: 'job finished' });
    s.clock.advance(10_000);
    assert.equal(s.triggered.length, 1);
  });
});

describe('backlog', () => {
  test('while a source reports a backlog, interval-during-backlog applies; when none does, the interval again', () => {
    const s = setup({ 'execution.checkpointing.interval': '100 ms', 'execution.checkpointing.interval-during-backlog': '300 ms', 'execution.checkpointing.max-concurrent-checkpoints': 100 });
    s.c.startScheduler();
    s.clock.advance(0);
    s.c.setBacklog(numbers.id, true);
    s.c.setBacklog('another-source', true);
    s.clock.advance(650);
    assert.deepEqual(at(s.triggered), [0, 300, 600]);
    s.c.setBacklog(numbers.id, false);
    s.clock.advance(250); // +900: one source still has a backlog
    assert.deepEqual(at(s.triggered), [0, 300, 600, 900]);
    s.c.setBacklog('another-source', false); // at +900, just triggered
    s.clock.advance(250);
    assert.deepEqual(at(s.triggered), [0, 300, 600, 900, 1000, 1100]);
  });

  test('interval-during-backlog 0: no checkpoints during a backlog; the first comes when it ends', () => {
    const s = setup({ 'execution.checkpointing.interval': '100 ms', 'execution.checkpointing.interval-during-backlog': 0, 'execution.checkpointing.max-concurrent-checkpoints': 100 });
    s.c.startScheduler();
    s.c.setBacklog(numbers.id, true);
    s.clock.advance(10_000);
    assert.equal(s.triggered.length, 0);
    s.c.setBacklog(numbers.id, false);
    s.clock.advance(0);
    assert.deepEqual(at(s.triggered), [10_000]);
    s.clock.advance(100);
    assert.deepEqual(at(s.triggered), [10_000, 10_100]);
  });

  test('without interval-during-backlog, a backlog changes nothing', () => {
    const s = setup({ 'execution.checkpointing.interval': '100 ms', 'execution.checkpointing.max-concurrent-checkpoints': 100 });
    s.c.startScheduler();
    s.c.setBacklog(numbers.id, true);
    s.clock.advance(300);
    assert.deepEqual(at(s.triggered), [0, 100, 200, 300]);
  });
});

test('num-retained: the coordinator keeps that many completed checkpoints and deletes older ones', async () => {
  const s = setup({ 'execution.checkpointing.num-retained': 2 });
  s.c.startScheduler();
  const results: CompletedCheckpoint[] = [];
  for (let i = 0; i < 4; i++) {
    const { id, result } = s.trigger();
    s.clock.advance(10);
    s.ackAll(id);
    results.push(await result);
  }
  assert.deepEqual(s.c.store.all().map((c) => c.id), [3, 4]);
  assert.deepEqual(s.storage.discarded, ['/fake/job/chk-1', '/fake/job/chk-2']);
  assert.deepEqual(s.completed, [1, 2, 3, 4]);
  assert.deepEqual(s.storage.writeCalls, ['/fake/job/chk-1', '/fake/job/chk-2', '/fake/job/chk-3', '/fake/job/chk-4']);
  const first = results[0]!;
  assert.equal(first.type, 'checkpoint');
  assert.equal(first.directory, '/fake/job/chk-1');
  assert.equal(first.triggeredAt, T0);
  assert.equal(first.completedAt, T0 + 10);
  assert.equal(first.stateBytes, 300, 'three acknowledgements of 100 bytes');
  const m = s.storage.written[0]!.metadata;
  assert.equal(m.jobId, 'job-1');
  assert.equal(m.checkpointId, 1);
  assert.deepEqual(m.operators.map((o) => [o.uid, o.parallelism]), [
    ['src', 2],
    ['out', 1],
  ]);
  assert.deepEqual(s.onCompleted.map((c) => c.id), [1, 2, 3, 4]);
});
