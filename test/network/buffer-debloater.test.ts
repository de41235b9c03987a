// The debloated budget of a receiving subtask's channels (Flink's BufferDebloater): what it
// consumes in the target time, shared by its channels; whole segments while that is at least two,
// then two smaller ones; the throughput averaged exponentially over the samples.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BufferDebloater } from '../../src/network/buffer-debloater.ts';

const settings = { targetMs: 1000, samples: 1, segments: 8, segmentPayload: 1000, minFillBytes: 256 };

test('before any measurement a channel holds two whole segments, not the whole ring', () => {
  assert.deepEqual(new BufferDebloater(settings).budgetFor(2), { segments: 2, fillBytes: 1000 });
  // A ring of one segment keeps that one.
  assert.deepEqual(new BufferDebloater({ ...settings, segments: 1 }).budgetFor(2), { segments: 1, fillBytes: 1000 });
  // With one more held beyond the segments: the two segments' bytes in three.
  assert.deepEqual(new BufferDebloater({ ...settings, heldBeyond: 1 }).budgetFor(2), { segments: 2, fillBytes: 666 });
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

test('what a channel holds beyond its segments counts against the bytes: fewer segments, then smaller ones', () => {
  // A ring's reader holds one decoded segment beyond the budget's.
  const ring = new BufferDebloater({ ...settings, heldBeyond: 1 });
  // 5,000 B/s over 2 channels: 2,500 B each: two whole segments and the decoded one (3,000 B).
  assert.deepEqual(ring.update(2_500, 500, 2), { segments: 2, fillBytes: 1000 });
  // 1,500 B each: two segments and the decoded one, of 500 B each.
  assert.deepEqual(ring.update(1_500, 1000, 1), { segments: 2, fillBytes: 500 });
  assert.equal(ring.heldAhead({ segments: 2, fillBytes: 500 }), 1500);
  // The whole ring only when the ring and the decoded segment fit.
  assert.deepEqual(ring.update(8_500, 1000, 1), { segments: 8, fillBytes: 1000 }, 'ceil(8.5) - 1 = 8');
  assert.deepEqual(ring.update(7_900, 1000, 1), { segments: 7, fillBytes: 1000 });
  // A channel within one TaskManager: two buffers at the receiver, two in the backlog, one being filled.
  const local = new BufferDebloater({ targetMs: 1000, samples: 1, segments: 16, segmentPayload: 512, minFillBytes: 1, heldBeyond: 3 });
  assert.deepEqual(local.update(1_000, 1000, 1), { segments: 2, fillBytes: 200 });
  assert.equal(local.heldAhead({ segments: 2, fillBytes: 200 }), 1000);
});
