// The JobMaster's heartbeat of one TaskManager and its wait for cancelled subtasks, on a manual
// clock: requests every interval, lost after the timeout of silence, an answer resets the count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeartbeatMonitor } from '../../src/coordinator/heartbeat-monitor.ts';
import { CancellationWatch } from '../../src/coordinator/cancellation-watch.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

function monitor(clock: ManualClock) {
  const sent: number[] = [];
  const lost: number[] = [];
  const m = new HeartbeatMonitor({ intervalMs: 100, timeoutMs: 350, clock, send: (seq) => sent.push(seq), onTimeout: (silent) => lost.push(silent) });
  return { m, sent, lost };
}

test('a heartbeat request goes out every interval while answers come', () => {
  const clock = new ManualClock();
  const { m, sent, lost } = monitor(clock);
  m.start();
  for (let i = 0; i < 10; i++) {
    clock.advance(100);
    m.received();
  }
  assert.deepEqual(sent, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  assert.deepEqual(lost, []);
  m.stop();
  clock.advance(10_000);
  assert.equal(sent.length, 11, 'a stopped monitor sends nothing');
  assert.deepEqual(lost, []);
});

test('silence for the timeout declares the TaskManager lost, exactly at the timeout and once', () => {
  const clock = new ManualClock();
  const { m, lost } = monitor(clock);
  m.start();
  clock.advance(200);
  m.received(); // the last answer, at 200
  clock.advance(349);
  assert.deepEqual(lost, [], 'not before the timeout');
  clock.advance(1);
  assert.deepEqual(lost, [350]);
  clock.advance(5000);
  assert.deepEqual(lost, [350], 'declared lost once');
  assert.equal(clock.pendingTimers, 0);
});

test('the cancellation watch resolves when every TaskManager has answered, or gives up on the rest at the timeout', async () => {
  const clock = new ManualClock();
  const given: number[][] = [];
  const w = new CancellationWatch(3, [0, 1, 2], 1000, clock, (s) => given.push(s));
  let done = false;
  void w.done.then(() => (done = true));
  w.answered(0);
  w.answered(2);
  await Promise.resolve();
  assert.equal(done, false);
  clock.advance(999);
  await Promise.resolve();
  assert.equal(done, false);
  clock.advance(1);
  await w.done;
  assert.deepEqual(given, [[1]]);

  const all = new CancellationWatch(4, [0, 1], 1000, clock, (s) => given.push(s));
  all.answered(1);
  all.answered(0);
  await all.done;
  clock.advance(5000);
  assert.deepEqual(given, [[1]], 'no give-up once all answered');
  assert.equal(clock.pendingTimers, 0);
});

test('task.cancellation.timeout 0 waits for as long as it takes', async () => {
  const clock = new ManualClock();
  const w = new CancellationWatch(1, [0], 0, clock, () => assert.fail('no timeout'));
  clock.advance(1e9);
  let done = false;
  void w.done.then(() => (done = true));
  await Promise.resolve();
  assert.equal(done, false);
  w.answered(0);
  await w.done;
});
