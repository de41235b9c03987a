// The tracker's time accounting: idle and backpressured stretches, timed at their starts and ends,
// never overlapping (busy time is what remains, as Flink derives it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskActivityTracker } from '../../src/worker/task-activity-tracker.ts';

test('idle time counts from idleStarted to idleEnded, the current stretch included, and repeated starts do not restart it', async () => {
  const t = new TaskActivityTracker();
  assert.equal(t.idleMs, 0);
  t.idleStarted();
  await sleep(30);
  t.idleStarted();
  const during = t.idleMs;
  assert.ok(during >= 25, `the stretch under way counts: ${during}`);
  await sleep(30);
  t.idleEnded();
  const first = t.idleMs;
  assert.ok(first >= 55, `from the first start: ${first}`);
  await sleep(30);
  assert.equal(t.idleMs, first, 'nothing counts while not idle');
  t.idleEnded();
  assert.equal(t.idleMs, first, 'an end without a start changes nothing');
});

test('backpressure ends idleness and keeps it from starting: a full output is not idle time', async () => {
  const t = new TaskActivityTracker();
  t.idleStarted();
  await sleep(20);
  t.backpressureStarted();
  const idleAtBackpressure = t.idleMs;
  assert.ok(idleAtBackpressure >= 15);
  t.idleStarted();
  await sleep(30);
  assert.equal(t.idleMs, idleAtBackpressure, 'no idle time while backpressured');
  t.backpressureEnded();
  assert.ok(t.backpressuredMs >= 25, `backpressure counted: ${t.backpressuredMs}`);
  t.idleStarted();
  await sleep(20);
  assert.ok(t.idleMs >= idleAtBackpressure + 15, 'idle again once the output drained');
});
