// The checkpoint coordinator's lifecycle states on their own: a fake controller whose periodic
// timer runs on a ManualClock, and a record of what each event asked it to do.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Timer } from '../../src/clock/clock.ts';
import { Stopped, type CheckpointLifecycle, type CheckpointLifecycleController } from '../../src/coordinator/checkpoint-lifecycle.ts';
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
  test('stopped at first: only forced triggers; start() makes it periodic and arms the timer', () => {
    const f = fakeController();
    let s: CheckpointLifecycle = new Stopped(0);
    assert.equal(s.name, 'stopped');
    assert.equal(s.admitsTrigger(false), false);
    assert.equal(s.admitsTrigger(true), true);
    f.clock.advance(1_000);
    assert.deepEqual(f.triggers, [], 'no timer before start()');
    s = s.start(f.controller);
    assert.equal(s.name, 'periodic');
    assert.equal(s.periodic, true);
    assert.equal(s.admitsTrigger(false), true);
    f.clock.advance(250);
    assert.deepEqual(f.triggers, [1_100, 1_200]);
  });

  test('stopPeriodic() cancels the timer and keeps the epoch: a trigger awaiting its id still goes out', () => {
    const f = fakeController();
    let s = new Stopped(0).start(f.controller);
    const epoch = s.epoch;
    s = s.stopPeriodic(f.controller);
    assert.equal(s.name, 'stopped');
    assert.deepEqual(f.calls, ['schedule', 'cancel']);
    f.clock.advance(1_000);
    assert.deepEqual(f.triggers, []);
    assert.equal(s.admitsIdFrom(epoch), true);
  });

  test('stop() aborts what is pending, then cancels the timer, and starts a new epoch that outlives a restart', () => {
    const f = fakeController();
    let s = new Stopped(0).start(f.controller);
    const before = s.epoch;
    s = s.stop(f.controller, 'job failover');
    assert.deepEqual(f.calls, ['schedule', 'abort: job failover', 'cancel']);
    assert.equal(s.name, 'stopped');
    assert.equal(s.admitsIdFrom(before), false, 'an id asked for before the failover does not go out');
    s = s.start(f.controller);
    assert.equal(s.admitsIdFrom(before), false, 'nor after periodic triggering started again');
    assert.equal(s.admitsIdFrom(s.epoch), true);
  });

  test('shutdown() is terminal: its reason stays, start() arms nothing, no id is admitted', () => {
    const f = fakeController();
    let s = new Stopped(0).start(f.controller);
    s = s.shutdown(f.controller, 'job canceled');
    assert.equal(s.name, 'shut-down');
    assert.equal(s.shutdownReason, 'job canceled');
    assert.equal(s.admitsIdFrom(s.epoch), false);
    s = s.start(f.controller);
    assert.equal(s.name, 'shut-down');
    assert.equal(s.periodic, false);
    f.clock.advance(1_000);
    assert.deepEqual(f.triggers, []);
    s = s.stop(f.controller, 'again');
    assert.equal(s.name, 'shut-down');
    assert.deepEqual(f.calls, ['schedule', 'abort: job canceled', 'cancel', 'abort: again']);
  });
});
