// WatermarkStrategy's built-in generators and idleness, on a manual clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WatermarkStrategy } from '../../src/api/watermark-strategy.ts';
import { type WatermarkOutput, watermarkValue } from '../../src/api/watermark.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

function recorder() {
  const got: Array<number | 'idle' | 'active'> = [];
  const output: WatermarkOutput = { emitWatermark: (w) => got.push(watermarkValue(w)), markIdle: () => got.push('idle'), markActive: () => got.push('active') };
  return { got, output };
}

test('forBoundedOutOfOrderness: the largest timestamp seen minus the bound minus 1, emitted periodically', () => {
  const g = WatermarkStrategy.forBoundedOutOfOrderness<number>('2 s').createWatermarkGenerator({ currentProcessingTime: () => 0 })!;
  const { got, output } = recorder();
  g.onPeriodicEmit(output);
  for (const ts of [5000, 9000, 7000]) g.onEvent(ts, ts, output);
  g.onPeriodicEmit(output);
  assert.deepEqual(got, [-Infinity, 6999]);
});

test('forMonotonousTimestamps: the largest timestamp minus 1', () => {
  const g = WatermarkStrategy.forMonotonousTimestamps<number>().createWatermarkGenerator({ currentProcessingTime: () => 0 })!;
  const { got, output } = recorder();
  g.onEvent(0, -100, output);
  g.onPeriodicEmit(output);
  assert.deepEqual(got, [-101]);
});

test('withIdleness: a split without records for the timeout of processing time is idle; a record makes it go on', () => {
  const clock = new ManualClock(0);
  const g = WatermarkStrategy.forMonotonousTimestamps<number>().withIdleness(1000).createWatermarkGenerator({ currentProcessingTime: () => clock.now() })!;
  const { got, output } = recorder();
  g.onEvent(0, 10, output);
  g.onPeriodicEmit(output); // saw activity
  clock.advance(600);
  g.onPeriodicEmit(output); // no new activity: the idle period starts
  clock.advance(600);
  g.onPeriodicEmit(output); // 600 ms into it: not yet
  clock.advance(500);
  g.onPeriodicEmit(output); // 1100 ms: idle
  g.onEvent(0, 20, output);
  g.onPeriodicEmit(output);
  assert.deepEqual(got, [9, 9, 9, 'idle', 19]);
});

test('noWatermarks makes no generator; bad arguments are TypeErrors naming the call', () => {
  assert.equal(WatermarkStrategy.noWatermarks().createWatermarkGenerator({ currentProcessingTime: () => 0 }), undefined);
  assert.throws(() => WatermarkStrategy.forBoundedOutOfOrderness(-1), /forBoundedOutOfOrderness: maxOutOfOrderness must be 0 or more/);
  assert.throws(() => WatermarkStrategy.forMonotonousTimestamps().withIdleness(0), /withIdleness: timeout must be more than 0/);
  assert.throws(() => WatermarkStrategy.forMonotonousTimestamps().withWatermarkAlignment('', 10), /needs a group name/);
  assert.throws(() => WatermarkStrategy.forMonotonousTimestamps().withTimestampAssigner(5 as never), /withTimestampAssigner needs a function/);
  const s = WatermarkStrategy.forMonotonousTimestamps<{ t: number }>().withTimestampAssigner((r) => r.t).withWatermarkAlignment('g', '1 s', 200);
  assert.deepEqual(s.alignment, { group: 'g', maxDrift: 1000, updateInterval: 200 });
  assert.equal(s.timestampAssigner!({ t: 7 }, -Infinity), 7);
});
