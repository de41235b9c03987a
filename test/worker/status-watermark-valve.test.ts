// The task's input watermark from its channels (Flink's StatusWatermarkValve): the minimum over
// active channels, only forward, idle channels left out, all idle -> the task is idle.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatusWatermarkValve } from '../../src/worker/status-watermark-valve.ts';

function valve(channels: number) {
  const out: Array<number | 'idle' | 'active'> = [];
  const v = new StatusWatermarkValve(channels, { emitWatermark: (w) => out.push(w), emitWatermarkStatus: (idle) => out.push(idle ? 'idle' : 'active') });
  return { v, out };
}

test('the minimum over the channels goes out, only when it advances', () => {
  const { v, out } = valve(3);
  v.inputWatermark(0, 10);
  v.inputWatermark(1, 5);
  assert.deepEqual(out, [], 'channel 2 has no watermark yet: the minimum is -Infinity');
  v.inputWatermark(2, 7);
  assert.deepEqual(out, [5]);
  v.inputWatermark(1, 20);
  assert.deepEqual(out, [5, 7]);
  v.inputWatermark(2, 6); // backwards on one channel: ignored
  v.inputWatermark(0, 10); // repeated
  assert.deepEqual(out, [5, 7]);
  v.inputWatermark(2, 30);
  assert.deepEqual(out, [5, 7, 10]);
  assert.equal(v.watermark, 10);
});

test('an idle channel does not hold the others back; all idle lets the furthest through, then the task is idle', () => {
  const { v, out } = valve(2);
  v.inputWatermark(0, 100);
  v.inputWatermarkStatus(1, true);
  assert.deepEqual(out, [100], 'channel 1 never had a watermark but is idle: channel 0 alone decides');
  v.inputWatermark(0, 150);
  v.inputWatermarkStatus(0, true);
  assert.deepEqual(out, [100, 150, 'idle']);
  assert.equal(v.idle, true);
});

test('a channel back from idle behind the valve counts again only once it has caught up', () => {
  const { v, out } = valve(2);
  v.inputWatermark(0, 50);
  v.inputWatermark(1, 60);
  v.inputWatermarkStatus(1, true);
  v.inputWatermark(0, 200);
  assert.deepEqual(out, [50, 200]);
  v.inputWatermarkStatus(1, false);
  v.inputWatermark(0, 300);
  assert.deepEqual(out, [50, 200, 300], 'channel 1 is back at 60, behind the valve: it does not hold channel 0 back');
  v.inputWatermark(1, 250);
  assert.deepEqual(out, [50, 200, 300], 'still behind');
  v.inputWatermark(1, 400);
  v.inputWatermark(0, 500);
  assert.deepEqual(out, [50, 200, 300, 400], 'caught up: it counts in the minimum again');
});

test('all idle, then one becomes active: the task is active again, and watermarks from idle channels are ignored', () => {
  const { v, out } = valve(2);
  v.inputWatermarkStatus(0, true);
  v.inputWatermarkStatus(1, true);
  assert.deepEqual(out, ['idle']);
  v.inputWatermark(1, 10);
  assert.deepEqual(out, ['idle'], 'a watermark while marked idle is ignored, as in Flink');
  v.inputWatermarkStatus(0, false);
  v.inputWatermark(0, 20);
  assert.deepEqual(out, ['idle', 'active', 20]);
});

test('the end of event time (Infinity) passes once every channel has sent it', () => {
  const { v, out } = valve(2);
  v.inputWatermark(0, Infinity);
  v.inputWatermark(1, 5);
  v.inputWatermark(1, Infinity);
  assert.deepEqual(out, [5, Infinity]);
});
