// The debloated budget of a receiving subtask's channels (Flink's BufferDebloater): what it
// consumes in the target time, shared by its channels; whole segments while that is at least two,
// then two smaller ones; the throughput averaged exponentially over the samples.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BufferDebloater } from '../../src/network/buffer-debloater.ts';

const settings = { targetMs: 1000, samples: 1, segments: 8, segmentPayload: 1000, minFillBytes: 256 };

test('before any measurement a channel keeps the whole ring', () => {
  assert.deepEqual(new BufferDebloater(settings).budgetFor(2), { segments: 8, fillBytes: 1000 });
});

test('the budget is what the subtask consumes in the target time, per channel', () => {
  const d = new BufferDebloater(settings);
  // 20,000 bytes in 500 ms: 40,000 B/s, over 2 channels 20,000 B each per target second: more than the ring.
  assert.deepEqual(d.update(20_000, 500, 2), { segments: 8, fillBytes: 1000 });
  // 5,000 B/s over 2 channels: 2,500 B each: three whole segments.
  assert.deepEqual(d.update(2_500, 500, 2), { segments: 3, fillBytes: 1000 });
  // 1,000 B/s over 2 channels: 500 B each: two segments of 250 B, at least 256.
  assert.deepEqual(d.update(500, 500, 2), { segments: 2, fillBytes: 256 });
  // 3,000 B/s over 1 channel: 3 segments.
  assert.deepEqual(d.update(1_500, 500, 1), { segments: 3, fillBytes: 1000 });
});

test('a target of 100 ms holds a tenth as much', () => {
  const d = new BufferDebloater({ ...settings, targetMs: 100 });
  assert.deepEqual(d.update(30_000, 1000, 1), { segments: 3, fillBytes: 1000 });
});

test('the throughput is averaged over the samples: one slow period moves the budget only part of the way', () => {
  const d = new BufferDebloater({ ...settings, samples: 3 });
  d.update(8_000, 1000, 1);
  assert.equal(d.throughput, 8000);
  d.update(0, 1000, 1);
  assert.equal(d.throughput, 4000, 'alpha = 2 / (samples + 1) = 0.5');
  assert.deepEqual(d.budgetFor(1), { segments: 4, fillBytes: 1000 });
});
