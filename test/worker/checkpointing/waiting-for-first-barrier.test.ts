import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AlternatingCollectingBarriers } from '../../../src/worker/checkpointing/alternating-collecting-barriers.ts';
import { CollectingAlignedBarriers } from '../../../src/worker/checkpointing/collecting-aligned-barriers.ts';
import { CollectingUnalignedBarriers } from '../../../src/worker/checkpointing/collecting-unaligned-barriers.ts';
import { WaitingForFirstBarrier } from '../../../src/worker/checkpointing/waiting-for-first-barrier.ts';
import { barrierOf, FakeBarrierHandlerController } from '../../fixtures/fake-barrier-handler-controller.ts';

function waiting(channels: number) {
  const idle = new WaitingForFirstBarrier();
  const c = new FakeBarrierHandlerController(channels, idle);
  return { idle, c, now: c.clock.now() };
}

test('an aligned barrier starts collecting: its channel is held back, nothing is triggered yet', () => {
  const { c, now } = waiting(2);
  const next = c.receive(1, barrierOf(1, now));
  assert.ok(next instanceof CollectingAlignedBarriers && !(next instanceof AlternatingCollectingBarriers));
  assert.deepEqual(c.take(), ['block 1']);
  assert.deepEqual([...c.blocked], [1]);
});

test('an aligned barrier on the only channel triggers at once and keeps waiting', () => {
  const { idle, c, now } = waiting(1);
  assert.equal(c.receive(0, barrierOf(1, now)), idle);
  assert.deepEqual(c.take(), ['block 0', 'unblock all', 'trigger']);
});

test('an unaligned barrier triggers the snapshot at once and records the channels still to deliver theirs', () => {
  const { c, now } = waiting(3);
  const next = c.receive(2, barrierOf(1, now, { unaligned: true }));
  assert.ok(next instanceof CollectingUnalignedBarriers);
  assert.deepEqual(c.take(), ['record 0', 'record 1', 'record 2', 'stop 2', 'unblock all', 'trigger unaligned', 'stop 2']);
  assert.deepEqual([...c.recording].sort(), [0, 1]);
  assert.equal(c.blocked.size, 0);
});

test('an aligned barrier with a timeout aligns and schedules the switch for when the timeout, counted from the trigger, runs out', () => {
  const { c, now } = waiting(2);
  const next = c.receive(0, barrierOf(1, now - 30, { alignedTimeout: 100 }));
  assert.ok(next instanceof AlternatingCollectingBarriers);
  assert.deepEqual(c.take(), ['timeout in 70', 'block 0']);
});

test('with a single channel a timeout is moot: the barrier aligns and triggers at once', () => {
  const { idle, c, now } = waiting(1);
  assert.equal(c.receive(0, barrierOf(1, now, { alignedTimeout: 100 })), idle);
  assert.deepEqual(c.take(), ['block 0', 'unblock all', 'trigger']);
});

test('with nothing pending, a timeout, an abort and an end of partition change nothing', () => {
  const { idle, c } = waiting(2);
  assert.equal(idle.alignedCheckpointTimeout(), idle);
  assert.equal(c.abortPending(1, 'why'), idle);
  assert.equal(idle.endOfPartition(), idle);
  assert.deepEqual(c.take(), []);
});
