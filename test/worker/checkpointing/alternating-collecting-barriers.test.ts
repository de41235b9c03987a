import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AlternatingCollectingBarriers } from '../../../src/worker/checkpointing/alternating-collecting-barriers.ts';
import { CollectingUnalignedBarriers } from '../../../src/worker/checkpointing/collecting-unaligned-barriers.ts';
import { WaitingForFirstBarrier } from '../../../src/worker/checkpointing/waiting-for-first-barrier.ts';
import { barrierOf, FakeBarrierHandlerController } from '../../fixtures/fake-barrier-handler-controller.ts';

const TIMEOUT = 100;

/** Checkpoint 1, triggered `ago` ms before its first barrier reaches channel 0 of `channels`. */
function aligning(channels: number, ago = 0) {
  const idle = new WaitingForFirstBarrier();
  const c = new FakeBarrierHandlerController(channels, idle);
  const barrier = barrierOf(1, c.clock.now() - ago, { alignedTimeout: TIMEOUT });
  c.receive(0, barrier);
  return { idle, c, barrier };
}

test('within the timeout the checkpoint stays aligned and completes aligned', () => {
  const { idle, c, barrier } = aligning(3);
  assert.ok(c.state instanceof AlternatingCollectingBarriers);
  assert.deepEqual(c.take(), ['timeout in 100', 'block 0']);
  c.clock.advance(60);
  assert.equal(c.receive(1, barrier).constructor, AlternatingCollectingBarriers);
  c.clock.advance(39);
  assert.deepEqual(c.take(), ['block 1'], 'no switch 1 ms before the timeout');
  assert.equal(c.receive(2, barrier), idle);
  assert.deepEqual(c.take(), ['block 2', 'unblock all', 'trigger']);
  c.clock.advance(1_000);
  assert.deepEqual(c.take(), [], 'the timeout of a completed checkpoint does nothing');
});

test('when the timeout passes, it switches to unaligned: snapshot now, channels released, those without a barrier recorded', () => {
  const { idle, c, barrier } = aligning(3);
  c.receive(2, barrier);
  c.take();
  c.clock.advance(TIMEOUT);
  assert.ok(c.state instanceof CollectingUnalignedBarriers);
  assert.deepEqual(c.take(), ['record 1', 'unblock all', 'trigger unaligned']);
  assert.deepEqual(c.inFlight, [[], [['in flight on 1']], []], 'aligned channels 0 and 2 carry nothing of checkpoint 1');
  assert.equal(c.blocked.size, 0);
  assert.equal(c.receive(1, barrier), idle, 'the last (aligned) barrier completes the in-flight data');
  assert.deepEqual(c.take(), ['stop 1', 'stop 0', 'stop 1', 'stop 2', 'unblock all', 'in-flight complete']);
});

test('a barrier that an upstream task switched to unaligned switches it before the timeout', () => {
  const { c, barrier } = aligning(3);
  c.take();
  c.clock.advance(10);
  const next = c.receive(2, { ...barrier, options: { ...barrier.options, unaligned: true } });
  assert.ok(next instanceof CollectingUnalignedBarriers);
  assert.deepEqual(c.take(), ['record 1', 'record 2', 'stop 2', 'unblock all', 'trigger unaligned', 'stop 2']);
  assert.deepEqual(c.inFlight, [[], [['in flight on 1']], [['in flight on 2']]], 'channel 2 carries what its priority barrier overtook');
  c.clock.advance(TIMEOUT);
  assert.equal(c.state, next, 'the timeout does not switch twice');
});

test('a timeout that has passed already when the first barrier arrives switches at once, without a timer', () => {
  const { c } = aligning(2, TIMEOUT);
  assert.ok(c.state instanceof CollectingUnalignedBarriers);
  assert.deepEqual(c.take(), ['record 1', 'unblock all', 'trigger unaligned', 'stop 0']);
  assert.equal(c.clock.pendingTimers, 0);
});

test('a timer that fires before the wall clock reaches the timeout does not switch yet, and waits for the rest', () => {
  const { c } = aligning(2);
  c.take();
  c.clock.advance(50);
  const state = c.state;
  assert.equal(state.alignedCheckpointTimeout(c), state);
  assert.deepEqual(c.take(), ['timeout in 50']);
  c.clock.advance(49);
  assert.equal(c.state, state);
  c.clock.advance(1);
  assert.ok(c.state instanceof CollectingUnalignedBarriers, 'switched when the rest has passed');
  assert.deepEqual(c.take(), ['record 1', 'unblock all', 'trigger unaligned']);
});

test('an abort releases the channels and goes back to waiting', () => {
  const { idle, c } = aligning(2);
  c.take();
  assert.equal(c.abortPending(1, 'expired'), idle);
  assert.deepEqual(c.take(), ['unblock all', 'abort 1: expired']);
  c.clock.advance(TIMEOUT);
  assert.deepEqual(c.take(), [], 'no switch for an aborted checkpoint');
});
