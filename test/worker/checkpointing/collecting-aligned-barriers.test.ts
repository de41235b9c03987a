import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputChannel } from '../../../src/network/input-channel.ts';
import type { ChannelItem } from '../../../src/network/stream-event.ts';
import { CollectingAlignedBarriers } from '../../../src/worker/checkpointing/collecting-aligned-barriers.ts';
import { CollectingUnalignedBarriers } from '../../../src/worker/checkpointing/collecting-unaligned-barriers.ts';
import { WaitingForFirstBarrier } from '../../../src/worker/checkpointing/waiting-for-first-barrier.ts';
import { InputGate } from '../../../src/worker/input-gate.ts';
import { barrierOf, FakeBarrierHandlerController } from '../../fixtures/fake-barrier-handler-controller.ts';
import { ManualClock } from '../../fixtures/manual-clock.ts';

function collecting(channels: number) {
  const idle = new WaitingForFirstBarrier();
  const c = new FakeBarrierHandlerController(channels, idle);
  const now = c.clock.now();
  c.receive(0, barrierOf(1, now));
  c.take();
  return { idle, c, now };
}

test('each barrier holds its channel back; the last triggers the snapshot, releases all and goes back to waiting', () => {
  const { idle, c, now } = collecting(3);
  const state = c.state;
  assert.equal(c.receive(2, barrierOf(1, now)), state, 'still collecting');
  assert.deepEqual(c.take(), ['block 2']);
  assert.deepEqual([...c.blocked].sort(), [0, 2]);
  assert.equal(c.receive(1, barrierOf(1, now)), idle);
  assert.deepEqual(c.take(), ['block 1', 'unblock all', 'trigger']);
  assert.equal(c.blocked.size, 0);
});

test('an abort of the pending checkpoint releases every channel and goes back to waiting without a snapshot', () => {
  const { idle, c } = collecting(2);
  assert.equal(c.abortPending(1, 'checkpoint 1 was cancelled upstream'), idle);
  assert.deepEqual(c.take(), ['unblock all', 'abort 1: checkpoint 1 was cancelled upstream']);
  assert.equal(c.blocked.size, 0);
});

test('a barrier that an upstream task switched to unaligned switches this checkpoint: snapshot now, record what is still to come', () => {
  const { c, now } = collecting(3);
  const next = c.receive(1, barrierOf(1, now, { unaligned: true }));
  assert.ok(next instanceof CollectingUnalignedBarriers);
  assert.deepEqual(c.take(), ['record 1', 'stop 1', 'record 2', 'unblock all', 'trigger unaligned', 'stop 1']);
  assert.deepEqual(c.inFlight, [[], [['in flight on 1']], [['in flight on 2']]], 'aligned channel 0 carries nothing; the switching barrier overtook what channel 1 queued');
  assert.deepEqual([...c.recording], [2]);
});

test('a timeout or an end of partition does not end an alignment', () => {
  const { c, now } = collecting(2);
  const state = c.state;
  assert.equal(state.alignedCheckpointTimeout(c), state);
  assert.equal(state.endOfPartition(c, 1), state);
  assert.deepEqual(c.take(), []);
  assert.equal(c.receive(1, barrierOf(1, now)).constructor, WaitingForFirstBarrier, 'the ended channel still delivers its barrier');
});

const records = (...words: string[]): ChannelItem => ({ kind: 'records', records: words, bytes: 0 });

/**
 * The seed's walk-through (as in test/worker/barrier-alignment.test.ts, here with the states
 * alone): Sum1 reads from Map1 (channel 0) and Map2 (channel 1). Map2's barrier arrives first,
 * so the (hello) that Map2 sends after it is held back while Map1's records still count; when
 * Map1's barrier arrives the snapshot holds hello=3, and the held (hello) comes after it.
 */
test("the seed's Sum1: records behind Map2's early barrier wait, Map1's records before its late barrier count", () => {
  const fromMap1 = new InputChannel(0, 'input 0 (from Map 1)');
  const fromMap2 = new InputChannel(1, 'input 1 (from Map 2)');
  const gate = new InputGate([fromMap1, fromMap2]);
  const c = new FakeBarrierHandlerController(2, new WaitingForFirstBarrier(), new ManualClock(), gate);
  const counts = new Map<string, number>();
  const snapshots: Array<Map<string, number>> = [];
  c.onTrigger = () => snapshots.push(new Map(counts));
  const run = () => {
    for (let next = gate.pollNext(); next; next = gate.pollNext()) {
      if (next.item.kind === 'records') for (const w of next.item.records as string[]) counts.set(w, (counts.get(w) ?? 0) + 1);
      else if (next.item.kind === 'barrier') c.receive(next.channel, next.item);
    }
  };
  const barrier = barrierOf(1, c.clock.now());

  fromMap1.deliver(records('hello', 'world'));
  fromMap2.deliver(records('hello'));
  run();
  fromMap2.deliver(barrier);
  fromMap2.deliver(records('hello'));
  run();
  assert.ok(c.state instanceof CollectingAlignedBarriers);
  assert.ok(gate.isBlocked(1), "Map2's channel is held back");
  assert.equal(counts.get('hello'), 2, "Map2's (hello) after its barrier is not processed");
  fromMap1.deliver(records('hello'));
  run();
  assert.equal(counts.get('hello'), 3, "Map1's (hello) before its barrier is processed while aligning");
  assert.equal(snapshots.length, 0);
  fromMap1.deliver(barrier);
  run();

  assert.equal(snapshots.length, 1, 'the snapshot is taken when the last barrier arrives');
  assert.deepEqual(Object.fromEntries(snapshots[0]!), { hello: 3, world: 1 });
  assert.equal(counts.get('hello'), 4, 'the held (hello) is processed after the snapshot');
  assert.ok(c.state instanceof WaitingForFirstBarrier);
});
