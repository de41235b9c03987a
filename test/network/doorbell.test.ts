// A receiving thread's doorbell: the writers of all its rings ring it instead of waking the reader
// of each ring, so the thread wakes once for any number of rings that got data while it waited.
// Both ends in this thread (the Atomics are the same across threads; the jobs on worker
// TaskManagers cross real threads with it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Doorbell } from '../../src/network/doorbell.ts';
import { DoorbellWaiter } from '../../src/network/doorbell-waiter.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectRingInput } from '../../src/network/ring-input.ts';
import { RingOutputChannel } from '../../src/network/ring-output-channel.ts';
import { SegmentRing } from '../../src/network/segment-ring.ts';
import type { ChannelItem } from '../../src/network/stream-event.ts';
import { InferringCodec } from '../../src/serialization/inferring-codec.ts';
import { systemClock } from '../../src/clock/clock.ts';

const shape = { segments: 4, segmentSize: 1024 };

/** Lets the Atomics wake-ups (promise callbacks) run. */
const settle = () => new Promise((r) => setImmediate(r));

function take(input: InputChannel): unknown[] {
  const out: unknown[] = [];
  for (let item = input.poll(); item; item = input.poll()) out.push(...describe(item));
  return out;
}

function describe(item: ChannelItem): unknown[] {
  return item.kind === 'records' ? item.records : [`<${item.kind}>`];
}

/** `n` channels into one thread: each a writer with the thread's doorbell, a reader on its waiter. */
function thread(n: number) {
  const bell = Doorbell.create();
  const waiter = new DoorbellWaiter(Doorbell.attach(bell.buffer));
  const errors: unknown[] = [];
  const channels = Array.from({ length: n }, (_, i) => {
    const ring = SegmentRing.create(shape, bell);
    const output = new RingOutputChannel(ring, new InferringCodec(), systemClock);
    const input = new InputChannel(i, `from writer ${i}`);
    const close = connectRingInput(SegmentRing.attach(ring.buffer, shape, Doorbell.attach(bell.buffer)), input, new InferringCodec(), (e) => errors.push(e), waiter);
    return { ring, output, input, close };
  });
  return { bell, waiter, channels, errors };
}

test('three rings that get data while their thread waits wake it once, and each reader finds its records', async () => {
  const { bell, waiter, channels, errors } = thread(3);
  await settle();
  assert.equal(waiter.readers, 3);
  const wakeUps = waiter.wakeUps;
  const notifies = bell.notifies();
  channels.forEach(({ output }, i) => {
    output.emit({ from: i, n: 1 }, Number.NaN);
    output.flush();
  });
  await settle();
  assert.equal(bell.notifies() - notifies, 1, 'the first ring notified; the others found the thread already woken');
  assert.equal(waiter.wakeUps - wakeUps, 1, 'one wake-up for the three rings');
  channels.forEach(({ input }, i) => assert.deepEqual(take(input), [{ from: i, n: 1 }]));
  assert.deepEqual(errors, []);
});

test('a ring rings only when its reader said it has nothing to read, and a priority event whenever', async () => {
  const { bell, channels } = thread(1);
  const [{ ring, output, input }] = channels as [(typeof channels)[0]];
  await settle();
  output.emit('a', Number.NaN);
  output.flush();
  await settle();
  // 'a' is queued in the input channel, not taken: the reader is not hungry.
  const before = bell.value();
  output.emit('b', Number.NaN);
  output.flush();
  assert.equal(bell.value(), before, 'a publish to a reader with data queued does not ring');
  assert.equal(ring.published(), 2);
  assert.deepEqual(take(input), ['a', 'b'], 'the task took both (the second by refill)');
  await settle();
  const idle = bell.value();
  output.sendPriority({ kind: 'barrier', checkpointId: 1, timestamp: 0, options: { type: 'checkpoint', unaligned: true, alignedTimeout: 0, targetDir: '/nonexistent' } });
  assert.equal(bell.value(), idle + 1, 'a priority event rings');
  await settle();
  assert.deepEqual(take(input), ['<barrier>']);
});

test('a ring closed at either end rings, its reader leaves the waiter, and the others go on', async () => {
  const { waiter, channels } = thread(3);
  await settle();
  channels[0]!.close();
  await settle();
  assert.equal(waiter.readers, 2, 'the reader closed at its end was dropped');
  channels[2]!.output.close();
  await settle();
  assert.equal(waiter.readers, 1, 'the reader whose writer closed the ring was dropped');
  channels[1]!.output.emit('still here', Number.NaN);
  channels[1]!.output.flush();
  await settle();
  assert.deepEqual(take(channels[1]!.input), ['still here']);
});

test('the waiter does not wait when the doorbell rang after the value it took', () => {
  const bell = Doorbell.create();
  const seen = bell.value();
  bell.ring();
  assert.equal(bell.wait(seen), undefined);
  assert.equal(bell.notifies(), 0, 'nobody waited: no notify');
  assert.throws(() => Doorbell.attach(new SharedArrayBuffer(8)), /a doorbell is 192 bytes, not 8/);
});
