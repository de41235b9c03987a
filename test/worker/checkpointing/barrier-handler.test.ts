import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputChannel } from '../../../src/network/input-channel.ts';
import type { Barrier, ChannelItem } from '../../../src/network/stream-event.ts';
import type { AlignmentFigures } from '../../../src/worker/checkpointing/alignment-figures.ts';
import { BarrierHandler } from '../../../src/worker/checkpointing/barrier-handler.ts';
import type { BarrierMode } from '../../../src/worker/checkpointing/barrier-mode.ts';
import { CheckpointAbortedError } from '../../../src/worker/checkpointing/checkpoint-aborted-error.ts';
import type { InFlightInput } from '../../../src/worker/checkpointing/in-flight-input.ts';
import { InputGate } from '../../../src/worker/input-gate.ts';
import { barrierOf } from '../../fixtures/fake-barrier-handler-controller.ts';
import { ManualClock } from '../../fixtures/manual-clock.ts';

interface Snapshot {
  readonly barrier: Barrier;
  readonly figures: AlignmentFigures;
  readonly inFlight: InFlightInput | undefined;
}

/** A handler over a real gate of `channels` channels, a task that records what it is asked, and a ManualClock. */
function handler(channels: number, mode: BarrierMode = 'aligned') {
  const inputs = Array.from({ length: channels }, (_, i) => new InputChannel(i, `input ${i} (from Map ${i + 1})`));
  const gate = new InputGate(inputs);
  const clock = new ManualClock();
  const snapshots: Snapshot[] = [];
  const aborts: Array<{ id: number; reason: string; code: string }> = [];
  let wakes = 0;
  const h = new BarrierHandler(
    gate,
    mode,
    {
      triggerSnapshot: (barrier, figures, inFlight) => snapshots.push({ barrier, figures, inFlight }),
      abortCheckpoint: (id, reason) => aborts.push({ id, reason: reason.message, code: reason.code }),
    },
    () => wakes++,
    clock,
  );
  return { h, gate, inputs, clock, snapshots, aborts, wakes: () => wakes };
}

const records = (...rs: unknown[]): ChannelItem => ({ kind: 'records', records: rs, bytes: 0 });

test('aligned: the figures are the start delay from the trigger, the alignment time and the bytes taken while aligning', () => {
  const { h, gate, clock, snapshots } = handler(2);
  const barrier = barrierOf(1, clock.now() - 25);
  h.noteProcessed(999);
  h.onBarrier(1, barrier);
  assert.equal(h.pendingCheckpoint, 1);
  assert.ok(gate.isBlocked(1));
  clock.advance(40);
  h.noteProcessed(100);
  h.noteProcessed(50);
  assert.equal(h.describe(), 'aligning checkpoint 1 for 40 ms, waiting for the barrier on input 0 (from Map 1)');
  clock.advance(2);
  h.onBarrier(0, barrier);
  assert.equal(snapshots.length, 1);
  assert.deepEqual(snapshots[0]!.figures, { alignmentMs: 42, startDelayMs: 25, processedBytes: 150 }, 'bytes before the first barrier do not count');
  assert.equal(snapshots[0]!.barrier, barrier);
  assert.equal(snapshots[0]!.inFlight, undefined);
  assert.equal(h.pendingCheckpoint, undefined);
  assert.equal(h.describe(), undefined);
  assert.ok(!gate.isBlocked(0) && !gate.isBlocked(1));
});

test('a newer barrier while aligning aborts the older checkpoint and starts aligning the newer', () => {
  const { h, gate, clock, snapshots, aborts } = handler(2);
  h.onBarrier(0, barrierOf(1, clock.now()));
  h.onBarrier(1, barrierOf(2, clock.now()));
  assert.deepEqual(aborts, [{ id: 1, reason: 'barrier of checkpoint 2 arrived before checkpoint 1 was aligned', code: 'CHECKPOINT_DECLINED_SUBSUMED' }]);
  assert.equal(h.pendingCheckpoint, 2);
  assert.ok(!gate.isBlocked(0), 'the aborted alignment released its channel');
  assert.ok(gate.isBlocked(1));
  h.onBarrier(0, barrierOf(1, clock.now()));
  assert.ok(!gate.isBlocked(0), 'a late barrier of the aborted checkpoint is ignored');
  h.onBarrier(0, barrierOf(2, clock.now()));
  assert.deepEqual(snapshots.map((s) => s.barrier.checkpointId), [2]);
});

test('barriers of checkpoints already handled, and repeated barriers of a channel, are ignored', () => {
  const { h, gate, clock, snapshots } = handler(2);
  h.onBarrier(0, barrierOf(1, clock.now()));
  h.onBarrier(0, barrierOf(1, clock.now()));
  assert.equal(h.describe()?.endsWith('waiting for the barrier on input 1 (from Map 2)'), true, 'a repeated barrier does not count');
  h.onBarrier(1, barrierOf(1, clock.now()));
  assert.equal(snapshots.length, 1);
  h.onBarrier(0, barrierOf(1, clock.now()));
  assert.equal(h.pendingCheckpoint, undefined, 'checkpoint 1 is done with: its barriers start nothing');
  assert.ok(!gate.isBlocked(0));
  h.onCancelBarrier(3);
  h.onBarrier(1, barrierOf(3, clock.now()));
  h.onBarrier(1, barrierOf(2, clock.now()));
  assert.equal(h.pendingCheckpoint, undefined, 'a cancel barrier of a checkpoint not pending marks it handled (and the ones before it)');
  assert.equal(snapshots.length, 1);
});

test('a cancel barrier or the coordinator aborting the pending checkpoint aborts it and releases the channels', () => {
  const { h, gate, clock, snapshots, aborts } = handler(3);
  h.onBarrier(0, barrierOf(1, clock.now()));
  h.onCancelBarrier(1);
  assert.deepEqual(aborts, [{ id: 1, reason: 'checkpoint 1 was cancelled upstream', code: 'CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER' }]);
  assert.ok(!gate.isBlocked(0));
  h.onBarrier(1, barrierOf(2, clock.now()));
  h.abort(1, 'not pending');
  h.abort(2, 'checkpoint 2 expired');
  assert.deepEqual(aborts[1], { id: 2, reason: 'checkpoint 2 expired', code: 'CHECKPOINT_COORDINATOR_SUSPEND' });
  assert.equal(aborts.length, 2, 'an abort of a checkpoint that is not pending does nothing');
  assert.ok(!gate.isBlocked(1));
  assert.equal(snapshots.length, 0);
});

test('unaligned: snapshot at the first barrier; the in-flight data completes with the alignment time at the last', async () => {
  const { h, inputs, clock, snapshots } = handler(2);
  const barrier = barrierOf(1, clock.now() - 5, { unaligned: true });
  inputs[0]!.deliver(records('a'));
  inputs[1]!.deliver(records('b'));
  inputs[1]!.deliverPriority(barrier);
  h.onBarrier(1, inputs[1]!.poll() as Barrier);
  assert.equal(snapshots.length, 1, 'snapshot at the first barrier');
  const { figures, inFlight } = snapshots[0]!;
  assert.deepEqual(figures, { alignmentMs: 0, startDelayMs: 5, processedBytes: 0 });
  assert.match(h.describe()!, /^collecting in-flight data of unaligned checkpoint 1 for 0 ms, waiting for the barrier on input 0 \(from Map 1\)$/);
  let settled: number | undefined;
  void inFlight!.complete.then((ms) => (settled = ms));
  inputs[0]!.deliver(records('c'));
  clock.advance(30);
  inputs[0]!.deliver(barrierOf(1, barrier.timestamp, { unaligned: true }));
  inputs[0]!.deliver(records('after'));
  await Promise.resolve();
  assert.equal(settled, undefined, 'not complete before the last barrier');
  h.onBarrier(0, barrierOf(1, barrier.timestamp, { unaligned: true }));
  assert.equal(await inFlight!.complete, 30);
  assert.deepEqual(inFlight!.buffers, [[['a'], ['c']], [['b']]], 'what the barriers overtook, per channel, and nothing after them');
  assert.equal(h.pendingCheckpoint, undefined);
});

test('unaligned: an abort rejects the in-flight data with the reason', async () => {
  const { h, clock, snapshots, aborts } = handler(2);
  h.onBarrier(0, barrierOf(1, clock.now(), { unaligned: true }));
  h.onBarrier(0, barrierOf(2, clock.now(), { unaligned: true }));
  const error = await snapshots[0]!.inFlight!.complete.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof CheckpointAbortedError);
  assert.equal(error.checkpointId, 1);
  assert.equal(error.message, 'barrier of checkpoint 2 arrived before checkpoint 1 was aligned');
  assert.equal(aborts[0]!.id, 1);
  assert.equal(snapshots[1]!.barrier.checkpointId, 2, 'the newer checkpoint started at once');
});

test('aligned timeout: the timer wakes the task, checkTimeout switches to unaligned with the figures so far', () => {
  const { h, gate, inputs, clock, snapshots, wakes } = handler(2);
  const barrier = barrierOf(1, clock.now() - 10, { alignedTimeout: 100 });
  h.onBarrier(1, barrier);
  h.noteProcessed(64);
  clock.advance(89);
  assert.equal(wakes(), 0);
  assert.match(h.describe()!, /^aligning checkpoint 1 for 89 ms/);
  clock.advance(1);
  assert.equal(wakes(), 1, 'woken when the timeout, counted from the trigger, has passed');
  assert.equal(snapshots.length, 0, 'the switch runs in the task, not in the timer');
  inputs[0]!.deliver(records('x'));
  h.checkTimeout();
  assert.equal(snapshots.length, 1);
  const s = snapshots[0]!;
  assert.equal(s.barrier.options.unaligned, true, 'the snapshot is unaligned');
  assert.equal(barrier.options.unaligned, false, 'the barrier received is left as it was');
  assert.deepEqual(s.figures, { alignmentMs: 0, startDelayMs: 10, processedBytes: 64 });
  assert.ok(!gate.isBlocked(1));
  assert.deepEqual(s.inFlight!.buffers, [[['x']], []]);
  assert.match(h.describe()!, /^collecting in-flight data of unaligned checkpoint 1/);
  h.checkTimeout();
  assert.equal(snapshots.length, 1, 'a second timeout does nothing');
});

test('aligned timeout: completing within it cancels the timer', () => {
  const { h, clock, snapshots, wakes } = handler(2);
  const barrier = barrierOf(1, clock.now(), { alignedTimeout: 100 });
  h.onBarrier(1, barrier);
  assert.equal(clock.pendingTimers, 1);
  h.onBarrier(0, barrier);
  assert.equal(clock.pendingTimers, 0);
  clock.advance(1_000);
  assert.equal(wakes(), 0);
  assert.equal(snapshots[0]!.inFlight, undefined);
});

test('aligned timeout: an upstream task switching first cancels the timer', () => {
  const { h, clock, snapshots, wakes } = handler(3);
  const barrier = barrierOf(1, clock.now(), { alignedTimeout: 100 });
  h.onBarrier(1, barrier);
  h.onBarrier(0, { ...barrier, options: { ...barrier.options, unaligned: true } });
  assert.equal(snapshots[0]!.barrier.options.unaligned, true);
  assert.equal(clock.pendingTimers, 0);
  clock.advance(1_000);
  assert.equal(wakes(), 0, 'no timeout for a checkpoint that is unaligned already');
});

test('at-least-once: no channel is held back for a checkpoint, the snapshot comes with the last barrier', () => {
  const { h, gate, clock, snapshots } = handler(2, 'at-least-once');
  h.onBarrier(0, barrierOf(1, clock.now()));
  assert.ok(!gate.isBlocked(0));
  assert.match(h.describe()!, /^collecting barriers of checkpoint 1 for 0 ms, waiting for the barrier on input 1 \(from Map 2\)$/);
  h.onBarrier(1, barrierOf(1, clock.now()));
  assert.equal(snapshots.length, 1);
  h.onBarrier(1, barrierOf(2, clock.now(), { type: 'savepoint' }));
  assert.ok(gate.isBlocked(1), 'a savepoint is aligned all the same');
  h.onBarrier(0, barrierOf(2, clock.now(), { type: 'savepoint' }));
  assert.equal(snapshots.length, 2);
  assert.ok(!gate.isBlocked(1));
});

test('an ended channel is noted and still takes part: the alignment waits for its barrier', () => {
  const { h, clock, snapshots } = handler(2);
  h.onBarrier(0, barrierOf(1, clock.now()));
  h.onEndOfPartition(1);
  assert.deepEqual(h.endedChannels, [1]);
  assert.equal(h.pendingCheckpoint, 1, 'end of partition neither completes nor aborts the alignment');
  assert.equal(snapshots.length, 0);
  h.onBarrier(1, barrierOf(1, clock.now()));
  assert.equal(snapshots.length, 1);
});
