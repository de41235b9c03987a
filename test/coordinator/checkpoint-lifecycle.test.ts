// The checkpoint coordinator's lifecycle states on their own: a fake controller whose periodic
// timer runs on a ManualClock, and a record of what each event asked it to do.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Timer } from '../../src/clock/clock.ts';
import { Unscheduled, type CheckpointLifecycle, type CheckpointLifecycleController } from '../../src/coordinator/checkpoint-lifecycle.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

const INTERVAL = 100;

/** A controller whose armed timer "triggers" every INTERVAL, and a log of calls in order. */
function fakeController() {
  const clock = new ManualClock(0);
  const calls: string[] = [];
  const triggers: number[] = [];
  let timer: Timer | undefined;
  const controller: CheckpointLifecycleController = {
    schedulePeriodic: () => {
      calls.push('schedule');
      timer?.cancel();
      const arm = (): void => {
        timer = clock.schedule(() => {
          triggers.push(clock.now());
          arm();
        }, INTERVAL);
      };
      arm();
    },
    cancelPeriodic: () => {
      calls.push('cancel');
      timer?.cancel();
      timer = undefined;
    },
    abortPending: (reason) => calls.push(`abort: ${reason}`),
  };
  return { clock, calls, triggers, controller };
}

describe('checkpoint lifecycle', () => {
  test('unscheduled at first: only forced triggers; startScheduler() makes it periodic and arms the timer', () => {
    const f = fakeController();
    let s: CheckpointLifecycle = new Unscheduled(0);
    assert.equal(s.name, 'unscheduled');
    assert.equal(s.admitsTrigger(false), false);
    assert.equal(s.admitsTrigger(true), true);
    f.clock.advance(1_000);
    assert.deepEqual(f.triggers, [], 'no timer before startScheduler()');
    s = s.startScheduler(f.controller);
    assert.equal(s.name, 'periodic');
    assert.equal(s.periodic, true);
    assert.equal(s.admitsTrigger(false), true);
    f.clock.advance(250);
    assert.deepEqual(f.triggers, [1_100, 1_200]);
  });

  test('pauseScheduler() cancels the timer and keeps the epoch: a trigger awaiting its id still goes out', () => {
    const f = fakeController();
    let s = new Unscheduled(0).startScheduler(f.controller);
    const epoch = s.epoch;
    s = s.pauseScheduler(f.controller);
    assert.equal(s.name, 'unscheduled');
    assert.deepEqual(f.calls, ['schedule', 'cancel']);
    f.clock.advance(1_000);
    assert.deepEqual(f.triggers, []);
    assert.equal(s.admitsIdFrom(epoch), true);
  });

  test('stopScheduler() aborts what is pending, then cancels the timer, and starts a new epoch that outlives a restart', () => {
    const f = fakeController();
    let s = new Unscheduled(0).startScheduler(f.controller);
    const before = s.epoch;
    s = s.stopScheduler(f.controller, 'job failover');
    assert.deepEqual(f.calls, ['schedule', 'abort: job failover', 'cancel']);
    assert.equal(s.name, 'unscheduled');
    assert.equal(s.admitsIdFrom(before), false, 'an id asked for before the failover does not go out');
    s = s.startScheduler(f.controller);
    assert.equal(s.admitsIdFrom(before), false, 'nor after periodic triggering started again');
    assert.equal(s.admitsIdFrom(s.epoch), true);
  });

  test('stop() is terminal: its reason stays, startScheduler() arms nothing, no id is admitted', () => {
    const f = fakeController();
    let s = new Unscheduled(0).startScheduler(f.controller);
    s = s.stop(f.controller, { code: 'shutdown', detail: 'job canceled' });
    assert.equal(s.name, 'stopped');
    assert.deepEqual(s.stopReason, { code: 'shutdown', detail: 'job canceled' });
    assert.equal(s.admitsIdFrom(s.epoch), false);
    s = s.startScheduler(f.controller);
    assert.equal(s.name, 'stopped');
    assert.equal(s.periodic, false);
    f.clock.advance(1_000);
    assert.deepEqual(f.triggers, []);
    s = s.stopScheduler(f.controller, 'again');
    assert.equal(s.name, 'stopped');
    assert.deepEqual(f.calls, ['schedule', 'abort: job canceled', 'cancel', 'abort: again']);
    s = s.stop(f.controller, { code: 'shutdown', detail: 'job finished' });
    assert.deepEqual(s.stopReason, { code: 'shutdown', detail: 'job canceled' }, 'stopped once: the first reason stays');
    assert.deepEqual(f.calls.at(-1), 'abort: job canceled', 'what is still pending is aborted in its words');
  });
});
