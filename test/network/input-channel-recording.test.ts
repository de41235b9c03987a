// What an input channel records as in-flight data of an unaligned checkpoint: exactly the records
// that came before the checkpoint's barrier on this channel and were not processed at the
// snapshot. A priority barrier overtakes what is queued when it arrives; records delivered after
// it queue behind it too, but they came after it and belong to the next checkpoint (the sender
// persisted those it had not sent, or emits them after its snapshot).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InputChannel } from '../../src/network/input-channel.ts';
import type { Barrier, ChannelItem } from '../../src/network/stream-event.ts';

const barrier = (checkpointId: number, unaligned: boolean): Barrier => ({
  kind: 'barrier',
  checkpointId,
  timestamp: Date.now(),
  options: { type: 'checkpoint', unaligned, alignedTimeout: unaligned ? 0 : 1, targetDir: '/nonexistent' },
});
const records = (...xs: string[]): ChannelItem => ({ kind: 'records', records: xs, bytes: 0 });

test('a queued priority barrier: only the records queued when it arrived are in flight', () => {
  const ch = new InputChannel(0, 'test');
  ch.deliver(records('a', 'b'));
  ch.deliver(records('c'));
  ch.deliverPriority(barrier(1, true));
  // Sent after the barrier: behind it in the queue, but not overtaken by it.
  ch.deliver(records('d'));
  assert.deepEqual(ch.startRecording(1).flat(), ['a', 'b', 'c']);
  assert.equal(ch.isRecording, false, 'the barrier is in: nothing more belongs to the checkpoint');
});

test('a priority barrier already taken from the channel: the records it overtook, not those after it', () => {
  const ch = new InputChannel(0, 'test');
  ch.deliver(records('a'));
  ch.deliverPriority(barrier(2, true));
  ch.deliver(records('b'));
  const taken = ch.poll();
  assert.equal(taken?.kind, 'barrier');
  assert.deepEqual(ch.startRecording(2).flat(), ['a']);
  ch.stopRecording();
  assert.deepEqual(
    ch.queued().flatMap((i) => (i.kind === 'records' ? i.records : [])),
    ['a', 'b'],
    'the records are still processed as usual',
  );
});

test('no barrier yet: what is queued, then what arrives until the priority barrier', () => {
  const ch = new InputChannel(0, 'test');
  ch.deliver(records('a'));
  const recorded = ch.startRecording(3);
  ch.deliver(records('b'));
  ch.deliverPriority(barrier(3, true));
  ch.deliver(records('c'));
  assert.deepEqual(recorded.flat(), ['a', 'b']);
  assert.equal(ch.isRecording, false);
});

test('an in-order barrier queued: the records before it', () => {
  const ch = new InputChannel(0, 'test');
  ch.deliver(records('a'));
  ch.deliver(barrier(4, false));
  ch.deliver(records('b'));
  assert.deepEqual(ch.startRecording(4).flat(), ['a']);
  assert.equal(ch.isRecording, false);
});

test('the records an older priority barrier overtook are not taken for a newer checkpoint', () => {
  const ch = new InputChannel(0, 'test');
  ch.deliver(records('a'));
  ch.deliverPriority(barrier(5, true));
  ch.poll();
  ch.poll();
  ch.deliver(records('b'));
  const recorded = ch.startRecording(6);
  ch.deliver(records('c'));
  ch.deliverPriority(barrier(6, true));
  assert.deepEqual(recorded.flat(), ['b', 'c']);
});
