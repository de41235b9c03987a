import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CollectingUnalignedBarriers } from '../../../src/worker/checkpointing/collecting-unaligned-barriers.ts';
import { WaitingForFirstBarrier } from '../../../src/worker/checkpointing/waiting-for-first-barrier.ts';
import { barrierOf, FakeBarrierHandlerController } from '../../fixtures/fake-barrier-handler-controller.ts';

const unaligned = (now: number) => barrierOf(1, now, { unaligned: true });

function started(channels: number, first: number) {
  const idle = new WaitingForFirstBarrier();
  const c = new FakeBarrierHandlerController(channels, idle);
  const now = c.clock.now();
  c.receive(first, unaligned(now));
  return { idle, c, now };
}

test('the first barrier takes the snapshot; the channels whose barrier has not arrived are recorded from then on', () => {
  const { c } = started(3, 1);
  assert.ok(c.state instanceof CollectingUnalignedBarriers);
  assert.deepEqual(c.take(), ['record 0', 'record 1', 'stop 1', 'record 2', 'unblock all', 'trigger unaligned', 'stop 1']);
  assert.deepEqual(c.inFlight, [[['in flight on 0']], [['in flight on 1']], [['in flight on 2']]], 'channel 1 carries what its priority barrier overtook');
  assert.deepEqual([...c.recording].sort(), [0, 2]);
  assert.equal(c.blocked.size, 0, 'nothing is held back');
});

test('each later barrier stops its channel recording; the last completes the in-flight data and goes back to waiting', () => {
  const { idle, c, now } = started(3, 1);
  c.take();
  c.clock.advance(40);
  const state = c.state;
  assert.equal(c.receive(2, unaligned(now)), state);
  assert.deepEqual(c.take(), ['stop 2']);
  assert.deepEqual([...c.recording], [0]);
  c.clock.advance(40);
  assert.equal(c.receive(0, unaligned(now)), idle);
  assert.deepEqual(c.take(), ['stop 0', 'stop 0', 'stop 1', 'stop 2', 'unblock all', 'in-flight complete']);
  assert.equal(c.recording.size, 0);
});

test('a single channel: snapshot and complete in one go', () => {
  const { idle, c } = started(1, 0);
  assert.equal(c.state, idle);
  assert.deepEqual(c.take(), ['record 0', 'stop 0', 'unblock all', 'trigger unaligned', 'stop 0', 'stop 0', 'unblock all', 'in-flight complete']);
});

test('an abort stops every recording, releases the channels and goes back to waiting', () => {
  const { idle, c } = started(3, 1);
  c.take();
  assert.equal(c.abortPending(1, 'barrier of checkpoint 2 arrived before checkpoint 1 was aligned'), idle);
  assert.deepEqual(c.take(), ['stop 0', 'stop 1', 'stop 2', 'unblock all', 'abort 1: barrier of checkpoint 2 arrived before checkpoint 1 was aligned']);
  assert.equal(c.recording.size, 0);
});

test('a timeout or an end of partition changes nothing: the snapshot is taken already', () => {
  const { c } = started(2, 0);
  c.take();
  const state = c.state;
  assert.equal(state.alignedCheckpointTimeout(c), state);
  assert.equal(state.endOfPartition(c, 1), state);
  assert.deepEqual(c.take(), []);
});
