import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CheckpointBarrierTracker } from '../../../src/worker/checkpointing/checkpoint-barrier-tracker.ts';
import { barrierOf, FakeBarrierHandlerController } from '../../fixtures/fake-barrier-handler-controller.ts';

function tracking(channels: number) {
  const tracker = new CheckpointBarrierTracker();
  const c = new FakeBarrierHandlerController(channels, tracker);
  return { tracker, c, now: c.clock.now() };
}

test('checkpoint barriers are counted, no channel is held back, the last one triggers', () => {
  const { tracker, c, now } = tracking(3);
  assert.equal(c.receive(1, barrierOf(1, now)), tracker);
  assert.equal(c.receive(0, barrierOf(1, now)), tracker);
  assert.deepEqual(c.take(), [], 'nothing blocked, nothing triggered');
  assert.equal(c.receive(2, barrierOf(1, now)), tracker);
  assert.deepEqual(c.take(), ['unblock all', 'trigger']);
});

test('savepoint barriers are aligned: each holds its channel back until the last one triggers', () => {
  const { tracker, c, now } = tracking(2);
  const savepoint = barrierOf(1, now, { type: 'savepoint' });
  c.receive(1, savepoint);
  assert.deepEqual(c.take(), ['block 1']);
  assert.deepEqual([...c.blocked], [1]);
  assert.equal(c.receive(0, savepoint), tracker);
  assert.deepEqual(c.take(), ['block 0', 'unblock all', 'trigger']);
  assert.equal(c.blocked.size, 0);
});

test('an abort releases the channels held for a savepoint', () => {
  const { tracker, c, now } = tracking(2);
  c.receive(0, barrierOf(1, now, { type: 'savepoint' }));
  c.take();
  assert.equal(c.abortPending(1, 'checkpoint 1 was cancelled upstream'), tracker);
  assert.deepEqual(c.take(), ['unblock all', 'abort 1: checkpoint 1 was cancelled upstream']);
  assert.equal(c.blocked.size, 0);
});

test('a timeout or an end of partition changes nothing', () => {
  const { tracker, c, now } = tracking(2);
  c.receive(0, barrierOf(1, now));
  assert.equal(tracker.alignedCheckpointTimeout(), tracker);
  assert.equal(tracker.endOfPartition(), tracker);
  assert.deepEqual(c.take(), []);
});
