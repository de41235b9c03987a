// Per-second figures from a subtask's successive reports: over the last 60 s, busy time as Flink
// derives it (1000 minus idle minus backpressured).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TaskMetrics } from '../../src/rpc/job-master-gateway.ts';
import { TaskRateWindow } from '../../src/coordinator/task-rates.ts';

const report = (at: number, f: Partial<TaskMetrics> = {}): TaskMetrics => ({
  vertexId: 'v',
  subtask: 0,
  recordsIn: 0,
  recordsOut: 0,
  backpressure: 0,
  idle: 0,
  bytesIn: 0,
  inPoolUsage: 0,
  outPoolUsage: 0,
  bytesOut: 0,
  reportedAt: at,
  activity: { kind: 'processing' },
  activitySince: 0,
  writing: [],
  ...f,
});

test('rates are the counters\' growth per second between the oldest and newest report; zero before two reports', () => {
  const w = new TaskRateWindow();
  assert.equal(w.rates().recordsInPerSecond, 0);
  w.add(report(10_000, { recordsIn: 100 }));
  assert.deepEqual(w.rates(), { recordsInPerSecond: 0, recordsOutPerSecond: 0, bytesInPerSecond: 0, bytesOutPerSecond: 0, idleTimeMsPerSecond: 0, backPressuredTimeMsPerSecond: 0, busyTimeMsPerSecond: 0 });
  w.add(report(10_500, { recordsIn: 600, recordsOut: 300, bytesIn: 5_000, bytesOut: 2_000, idle: 100, backpressure: 50 }));
  w.add(report(12_000, { recordsIn: 2_100, recordsOut: 1_200, bytesIn: 20_000, bytesOut: 8_000, idle: 400, backpressure: 200 }));
  const r = w.rates();
  assert.equal(r.recordsInPerSecond, 1_000);
  assert.equal(r.recordsOutPerSecond, 600);
  assert.equal(r.bytesInPerSecond, 10_000);
  assert.equal(r.bytesOutPerSecond, 4_000);
  assert.equal(r.idleTimeMsPerSecond, 200);
  assert.equal(r.backPressuredTimeMsPerSecond, 100);
  assert.equal(r.busyTimeMsPerSecond, 700);
});

test('only the last 60 s count: older reports are dropped as newer ones come', () => {
  const w = new TaskRateWindow();
  // A burst at first, then a steady 10 records per second.
  w.add(report(0, { recordsIn: 0 }));
  w.add(report(1_000, { recordsIn: 100_000 }));
  for (let s = 2; s <= 120; s++) w.add(report(s * 1_000, { recordsIn: 100_000 + (s - 1) * 10 }));
  const r = w.rates();
  assert.ok(Math.abs(r.recordsInPerSecond - 10) < 0.5, `the burst left the window: ${r.recordsInPerSecond}`);
});

test('a report at the same moment as the last replaces it; idle and backpressure never exceed a second per second', () => {
  const w = new TaskRateWindow();
  w.add(report(0));
  w.add(report(1_000, { recordsIn: 10 }));
  w.add(report(1_000, { recordsIn: 20, idle: 900, backpressure: 400 }));
  const r = w.rates();
  assert.equal(r.recordsInPerSecond, 20);
  assert.equal(r.idleTimeMsPerSecond, 900);
  assert.equal(r.backPressuredTimeMsPerSecond, 100, 'clamped to what idle left of the second');
  assert.equal(r.busyTimeMsPerSecond, 0);
});

test('where the time goes is taken over the recent 5 s (Flink\'s TimerGauge), record rates over the minute', () => {
  const w = new TaskRateWindow();
  // 30 s idle, then 10 s fully backpressured.
  for (let s = 0; s <= 30; s++) w.add(report(s * 1_000, { recordsIn: s * 100, idle: s * 1_000 }));
  for (let s = 31; s <= 40; s++) w.add(report(s * 1_000, { recordsIn: s * 100, idle: 30_000, backpressure: (s - 30) * 1_000 }));
  const r = w.rates();
  assert.equal(r.backPressuredTimeMsPerSecond, 1000, 'the last 5 s were all backpressured');
  assert.equal(r.idleTimeMsPerSecond, 0);
  assert.equal(r.busyTimeMsPerSecond, 0);
  assert.equal(r.recordsInPerSecond, 100, 'records per second over the whole window');
});
