// The sender side of the aligned-checkpoint timeout (Flink's timeoutable aligned barriers,
// FLINK-27251): an aligned barrier that waits in a sender's backlog past its checkpoint's aligned
// timeout leaves as a priority barrier, and the records it had ahead of it are reported as that
// channel's part of the checkpoint. They are still delivered, after it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectLocal } from '../../src/network/local-channel.ts';
import type { Barrier, ChannelItem } from '../../src/network/stream-event.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

const barrier = (clock: ManualClock, alignedTimeout: number): Barrier => ({
  kind: 'barrier',
  checkpointId: 3,
  timestamp: clock.now(),
  options: { type: 'checkpoint', unaligned: false, alignedTimeout, targetDir: '/nonexistent' },
});

function takeAll(ch: InputChannel): ChannelItem[] {
  const out: ChannelItem[] = [];
  for (let item = ch.poll(); item; item = ch.poll()) out.push(item);
  return out;
}

const describe = (items: ChannelItem[]) => items.map((i) => (i.kind === 'records' ? i.records.join('') : `${i.kind}${i.kind === 'barrier' && i.options.unaligned ? '*' : ''}`));

function setup(credits: number) {
  const clock = new ManualClock();
  const input = new InputChannel(0, 'receiver');
  const output = connectLocal(input, { credits, batchSize: 2, clock, maxBacklog: 100 });
  return { clock, input, output };
}

test('a barrier stuck behind records waiting for credit is converted at its deadline and overtakes them', async () => {
  const { clock, input, output } = setup(1);
  for (const r of ['a', 'b', 'c', 'd', 'e']) output.emit(r);
  const settled = output.sendEvent(barrier(clock, 200));
  assert.ok(settled, 'the barrier had to wait: the caller learns when it left');
  assert.deepEqual(describe(input.queued()), ['ab'], 'one credit: one buffer went, the rest waits');
  clock.advance(199);
  assert.equal(input.queued().length, 1, 'not yet due');
  clock.advance(1);
  assert.deepEqual(describe(input.queued()), ['barrier*', 'ab'], 'the converted barrier overtook everything, even what the receiver queued');
  assert.deepEqual(await settled, ['c', 'd', 'e'], 'what it overtook in the backlog is the checkpoint\'s channel state');
  // Credits come back as the receiver takes buffers: the overtaken records still arrive, once.
  assert.deepEqual(describe(takeAll(input)), ['barrier*', 'ab', 'cd', 'e']);
  assert.equal(clock.pendingTimers, 0);
});

test('a barrier that leaves in order before its deadline is not converted', async () => {
  const { clock, input, output } = setup(1);
  for (const r of ['a', 'b', 'c']) output.emit(r);
  const settled = output.sendEvent(barrier(clock, 200));
  assert.ok(settled);
  clock.advance(50);
  assert.deepEqual(describe(takeAll(input)), ['ab', 'c', 'barrier']);
  assert.equal(await settled, undefined, 'it left in order: nothing overtaken');
  clock.advance(1000);
  assert.equal(clock.pendingTimers, 0);
  assert.deepEqual(describe(input.queued()), [], 'taken before its deadline: nothing to convert');
});

test('a barrier sent but still queued at the receiver at its deadline is converted there: it overtakes what the receiver holds', () => {
  const { clock, input, output } = setup(10);
  for (const r of ['a', 'b', 'c']) output.emit(r);
  assert.equal(output.sendEvent(barrier(clock, 200)), undefined, 'room to leave: it went at once');
  assert.deepEqual(describe(input.queued()), ['ab', 'c', 'barrier']);
  clock.advance(200);
  assert.deepEqual(describe(input.queued()), ['barrier*', 'ab', 'c']);
  assert.deepEqual(input.startRecording(3).flat(), ['a', 'b', 'c'], 'the receiver persists what it overtook');
});

test('a barrier with room to leave goes at once, and one without an aligned timeout is never converted', () => {
  const { clock, input, output } = setup(10);
  output.emit('a');
  assert.equal(output.sendEvent(barrier(clock, 200)), undefined);
  assert.deepEqual(describe(takeAll(input)), ['a', 'barrier']);
  const blocked = setup(0);
  blocked.output.emit('x');
  assert.equal(blocked.output.sendEvent(barrier(blocked.clock, 0)), undefined, 'no timeout: nobody waits for it');
  blocked.clock.advance(60_000);
  assert.deepEqual(describe(blocked.input.queued()), [], 'still in order behind the record');
});

test('a deadline already past when the barrier is queued converts it as soon as timers run', async () => {
  const { clock, input, output } = setup(0);
  output.emit('a');
  const b = barrier(clock, 100);
  clock.advance(500);
  const settled = output.sendEvent(b)!;
  clock.advance(0);
  assert.deepEqual(await settled, ['a']);
  assert.deepEqual(describe(input.queued()), ['barrier*']);
});
