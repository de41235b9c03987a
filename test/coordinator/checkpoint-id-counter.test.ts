// The CheckpointCoordinator takes every new checkpoint and savepoint id from its CheckpointIdCounter:
// a fake one that answers late, fails or never answers, and the HA store's counter bound to two
// leaderships (in memory). The job: Numbers (2 subtasks) -> rebalance -> Out (1), three acks a checkpoint.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { failureCounts, type CheckpointFailureReport } from '../../src/checkpoint/checkpoint-failure-reason.ts';
import { LeaderCheckpointIdCounter } from '../../src/cluster/leader-checkpoint-id-counter.ts';
import { buildConfig } from '../../src/config/configuration.ts';
import { CheckpointCoordinator } from '../../src/coordinator/checkpoint-coordinator.ts';
import { CheckpointFailureError } from '../../src/coordinator/checkpoint-failure-error.ts';
import { CheckpointNotStartedError } from '../../src/coordinator/checkpoint-not-started-error.ts';
import { InMemoryCheckpointIdCounter, type CheckpointIdCounter } from '../../src/coordinator/checkpoint-id-counter.ts';
import type { Fence } from '../../src/ha/fence.ts';
import { FencedWriteError } from '../../src/ha/fenced-write-error.ts';
import { inMemoryHighAvailabilityServices } from '../../src/ha/in-memory-high-availability-services.ts';
import type { JobGraph } from '../../src/graph/job-graph.ts';
import { silentLogger, type Logger } from '../../src/log/logger.ts';
import { FakeCheckpointStorage } from '../fixtures/fake-checkpoint-storage.ts';
import { ACK_FIGURES, numbersToOutGraph } from '../fixtures/numbers-to-out-graph.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

let graph: JobGraph;

before(async () => {
  graph = await numbersToOutGraph();
});

const FIGURES = ACK_FIGURES;

/** A counter in a store: each getAndIncrement waits until the test answers it (with an id, or an error). */
class FakeStoreCounter implements CheckpointIdCounter {
  readonly description = 'the fake store';
  readonly calls: Array<{ resolve: (id: number) => void; reject: (e: Error) => void }> = [];
  readonly setCounts: number[] = [];
  #next = 1;
  #waiters: Array<() => void> = [];

  getAndIncrement(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.calls.push({ resolve, reject });
      for (const w of this.#waiters.splice(0)) w();
    });
  }

  async setCount(next: number): Promise<void> {
    this.setCounts.push(next);
    this.#next = Math.max(this.#next, next);
  }

  /** Answers the oldest open call with the next id. */
  answer(): number {
    const id = this.#next++;
    this.calls.shift()!.resolve(id);
    return id;
  }

  fail(error: Error): void {
    this.calls.shift()!.reject(error);
  }

  /** Resolves once a call is open. */
  called(): Promise<void> {
    return this.calls.length > 0 ? Promise.resolve() : new Promise((resolve) => this.#waiters.push(resolve));
  }
}

function setup(idCounter: CheckpointIdCounter | undefined, settings: Record<string, unknown> = {}) {
  const clock = new ManualClock();
  const storage = new FakeCheckpointStorage();
  const triggered: number[] = [];
  const failures: Array<{ id: number; failure: CheckpointFailureReport }> = [];
  const failJob: Error[] = [];
  let onTrigger: ((id: number) => void) | undefined;
  const hooks: { onWarn?: (message: string) => void } = {};
  const log: Logger = { ...silentLogger, warn: (message) => hooks.onWarn?.(message), child: () => log };
  const c = new CheckpointCoordinator({
    jobId: 'job-1',
    config: buildConfig(settings),
    jobGraph: graph,
    log,
    clock,
    storage,
    triggerSources: (id) => {
      triggered.push(id);
      onTrigger?.(id);
    },
    notifyComplete: () => {},
    notifyAborted: () => {},
    describeTasks: () => Promise.resolve({ tasks: [], silent: [] }),
    failJob: (e) => failJob.push(e),
    onFailed: (id, failure) => failures.push({ id, failure }),
    ...(idCounter ? { idCounter } : {}),
  });
  const ackAll = (id: number) => {
    for (const [v, subtasks] of graph.vertices.map((v) => [v, v.parallelism] as const)) {
      for (let i = 0; i < subtasks; i++) {
        c.receiveAck({ attempt: 0, vertexId: v.id, subtask: i, checkpointId: id, state: { operators: [], inputChannels: {}, outputChannels: {} }, figures: FIGURES });
      }
    }
  };
  /** Resolves with the id of the next checkpoint that goes out to the sources. */
  const nextTrigger = () => new Promise<number>((resolve) => (onTrigger = resolve));
  return { c, clock, storage, triggered, failures, failJob, ackAll, nextTrigger, hooks };
}

describe('the in-memory counter (no high availability)', () => {
  test('is the default: the trigger goes out in the same turn, numbered from 1, savepoints included, and a restore moves it on', async () => {
    const s = setup(undefined);
    s.c.startScheduler();
    void s.c.trigger({ type: 'checkpoint' }).catch(() => {});
    assert.deepEqual(s.triggered, [1], 'triggered synchronously: no promise hop on the fast path');
    await s.c.setNextId(42);
    void s.c.trigger({ type: 'savepoint', targetDir: '/sp', force: true }).catch(() => {});
    void s.c.trigger({ type: 'checkpoint' }).catch(() => {});
    assert.deepEqual(s.triggered, [1, 42, 43]);
    await s.c.setNextId(10);
    void s.c.trigger({ type: 'checkpoint' }).catch(() => {});
    assert.deepEqual(s.triggered, [1, 42, 43, 44], 'never back');
    s.c.stopScheduler('end of test');
  });

  test('an explicit InMemoryCheckpointIdCounter starts where it is told', () => {
    const s = setup(new InMemoryCheckpointIdCounter(7));
    s.c.startScheduler();
    void s.c.trigger({ type: 'checkpoint' }).catch(() => {});
    assert.deepEqual(s.triggered, [7]);
    s.c.stopScheduler('end of test');
  });
});

describe('a counter in a store (asynchronous)', () => {
  test('every checkpoint and savepoint id comes from it, strictly increasing, and the checkpoints complete', async () => {
    const counter = new FakeStoreCounter();
    const s = setup(counter);
    s.c.startScheduler();
    const first = s.c.trigger({ type: 'checkpoint' });
    assert.deepEqual(s.triggered, [], 'nothing goes out before the id is there');
    const triggeredFirst = s.nextTrigger();
    counter.answer();
    s.ackAll(await triggeredFirst);
    assert.equal((await first).id, 1);

    const sp = s.c.trigger({ type: 'savepoint', targetDir: '/sp', force: true });
    const triggeredSp = s.nextTrigger();
    counter.answer();
    s.ackAll(await triggeredSp);
    assert.equal((await sp).id, 2);

    await s.c.setNextId(20);
    assert.deepEqual(counter.setCounts, [20], 'a restore moves the store counter');
    const third = s.c.trigger({ type: 'checkpoint' });
    const triggeredThird = s.nextTrigger();
    counter.answer();
    s.ackAll(await triggeredThird);
    assert.equal((await third).id, 20);
    assert.deepEqual(s.triggered, [1, 2, 20]);
    assert.deepEqual(s.failures, []);
    s.c.stopScheduler('end of test');
  });

  test('a failing counter (NATS unreachable) fails that checkpoint with IO_EXCEPTION, counted against the tolerable failures; the next one goes on', async () => {
    const counter = new FakeStoreCounter();
    const s = setup(counter, { 'execution.checkpointing.tolerable-failed-checkpoints': 1 });
    s.c.startScheduler();
    const failed = s.c.trigger({ type: 'checkpoint' });
    counter.fail(new Error('TIMEOUT: no responders (nats://127.0.0.1:4333)'));
    await assert.rejects(failed, (e: unknown) => {
      assert.ok(e instanceof CheckpointNotStartedError, String(e));
      assert.equal(e.code, 'IO_EXCEPTION');
      assert.equal(failureCounts(e.code), true, 'a storage reason that counts');
      assert.equal(e.counter, 'the fake store');
      assert.match(e.message, /checkpoint not started: taking its id from the fake store failed: TIMEOUT: no responders/);
      return true;
    });
    assert.deepEqual(s.triggered, []);
    assert.equal(s.c.stats.counts.failed, 1);
    assert.equal(s.failJob.length, 0, 'one failure is tolerated');

    const ok = s.c.trigger({ type: 'checkpoint' });
    const triggered = s.nextTrigger();
    counter.answer();
    s.ackAll(await triggered);
    assert.equal((await ok).id, 1);

    // A completion resets the count: two more failures in a row pass the tolerable one.
    for (let i = 0; i < 2; i++) {
      const p = s.c.trigger({ type: 'checkpoint' });
      counter.fail(new Error('connection refused'));
      await assert.rejects(p, /connection refused/);
    }
    assert.equal(s.failJob.length, 1);
    assert.ok(s.failJob[0] instanceof CheckpointFailureError);
    assert.equal(s.failJob[0].checkpointId, undefined, 'it never had an id');
    assert.match(s.failJob[0].message, /2 consecutive failures.*connection refused/);
    assert.equal(s.c.stats.counts.failed, 3);
    s.c.stopScheduler('end of test');
  });

  test('a counter that never answers fails the checkpoint with IO_EXCEPTION after execution.checkpointing.timeout; it does not hold back the next periodic one', async () => {
    const counter = new FakeStoreCounter();
    const s = setup(counter, { 'execution.checkpointing.interval': '1 s', 'execution.checkpointing.timeout': '5 s', 'execution.checkpointing.tolerable-failed-checkpoints': 10 });
    s.c.startScheduler();
    s.clock.advance(0);
    await counter.called();
    s.clock.advance(1000);
    assert.equal(counter.calls.length, 1, 'max-concurrent-checkpoints (1) counts a trigger waiting for its id');
    const failed = new Promise<void>((resolve) => (s.hooks.onWarn = () => resolve()));
    s.clock.advance(4000);
    await failed;
    assert.equal(s.c.stats.counts.failed, 1);
    assert.equal(s.failJob.length, 0);
    s.clock.advance(1000);
    assert.equal(counter.calls.length, 2, 'the next periodic trigger asks for an id again');
    const triggered = s.nextTrigger();
    counter.calls.shift()!.resolve(99); // the lost call's answer comes in late: nothing happens with it
    counter.answer();
    assert.equal(await triggered, 1);
    assert.deepEqual(s.triggered, [1]);
    s.c.stopScheduler('end of test');
  });

  test('an id that arrives after a failover is not triggered and counts as no failure', async () => {
    const counter = new FakeStoreCounter();
    const s = setup(counter);
    s.c.startScheduler();
    const p = s.c.trigger({ type: 'checkpoint' });
    s.c.stopScheduler('job failover');
    counter.answer();
    await assert.rejects(p, /checkpoint 1 not triggered: the job failed over while its id was being taken/);
    assert.deepEqual(s.triggered, []);
    assert.equal(s.failJob.length, 0);
    assert.equal(s.c.stats.counts.failed, 0);
  });
});

describe('the HA store counter of two leaders', () => {
  const fence = (epoch: number): Fence => ({ epoch, sessionId: `session-${epoch}`, check: () => {} });

  test('ids never repeat and grow across leaders; a deposed leader gets no id and its checkpoint fails with IO_EXCEPTION', async () => {
    const { services } = inMemoryHighAvailabilityServices();
    const jobId = 'c'.repeat(32);
    const complete = async (s: ReturnType<typeof setup>): Promise<number> => {
      const p = s.c.trigger({ type: 'checkpoint' });
      const id = await s.nextTrigger();
      s.ackAll(id);
      return (await p).id;
    };
    const a = setup(new LeaderCheckpointIdCounter(services.checkpointIdCounter(jobId), fence(1), services.description), { 'execution.checkpointing.tolerable-failed-checkpoints': 5 });
    a.c.startScheduler();
    const ids = [await complete(a), await complete(a)];

    // A new leader claims the counter on recovery (its pointer store may lag behind: it does not matter).
    await services.checkpointIdCounter(jobId).recover(fence(2));
    const b = setup(new LeaderCheckpointIdCounter(services.checkpointIdCounter(jobId), fence(2), services.description));
    b.c.startScheduler();
    ids.push(await complete(b));

    await assert.rejects(a.c.trigger({ type: 'checkpoint' }), (e: unknown) => {
      assert.ok(e instanceof CheckpointNotStartedError && e.code === 'IO_EXCEPTION', String(e));
      assert.match(e.message, /taking its id from the checkpoint id counter in .* failed: .*epoch 2.*epoch 1/);
      return true;
    });
    await assert.rejects(services.checkpointIdCounter(jobId).getAndIncrement(fence(1)), FencedWriteError);
    ids.push(await complete(b));
    assert.deepEqual(ids, [1, 2, 3, 4]);
    assert.deepEqual(a.triggered, [1, 2]);
    a.c.stopScheduler('end of test');
    b.c.stopScheduler('end of test');
    await services.stop(SHUTDOWN);
  });
});
