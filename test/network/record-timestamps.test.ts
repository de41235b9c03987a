// Records' event-time timestamps travel beside them through local channels and shared-memory
// rings (in the frame, before the record), watermarks and watermark status as events in order
// with records and barriers; records without timestamps carry nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemClock } from '../../src/clock/clock.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectLocal } from '../../src/network/local-channel.ts';
import { NO_TIMESTAMP } from '../../src/network/record-timestamp.ts';
import { connectRingInput } from '../../src/network/ring-input.ts';
import { RingOutputChannel } from '../../src/network/ring-output-channel.ts';
import { SegmentRing } from '../../src/network/segment-ring.ts';
import type { ChannelItem } from '../../src/network/stream-event.ts';
import { InferringCodec } from '../../src/serialization/inferring-codec.ts';

const settle = () => new Promise((r) => setImmediate(r));

function drain(input: InputChannel): Array<unknown> {
  const out: unknown[] = [];
  for (let item = input.poll(); item; item = input.poll()) out.push(...flatten(item));
  return out;
}

function flatten(item: ChannelItem): unknown[] {
  if (item.kind === 'records') return item.records.map((r, i) => [r, item.timestamps?.[i] ?? 'none']);
  if (item.kind === 'watermark') return [`<wm ${item.timestamp}>`];
  if (item.kind === 'watermark-status') return [`<${item.idle ? 'idle' : 'active'}>`];
  return [`<${item.kind}>`];
}

const script = (emit: (r: unknown, ts: number) => void, event: (e: { kind: 'watermark'; timestamp: number } | { kind: 'watermark-status'; idle: boolean }) => void) => {
  emit('a', NO_TIMESTAMP);
  emit('b', 1000);
  emit('c', -5); // before 1970 is fine
  event({ kind: 'watermark', timestamp: 999 });
  emit('x'.repeat(3000), 2000.5); // larger than a ring segment: spans with its timestamp
  emit('d', NO_TIMESTAMP);
  event({ kind: 'watermark-status', idle: true });
  event({ kind: 'watermark', timestamp: Infinity });
};

const expected = [['a', NO_TIMESTAMP], ['b', 1000], ['c', -5], '<wm 999>', ['x'.repeat(3000), 2000.5], ['d', NO_TIMESTAMP], '<idle>', '<wm Infinity>'];

test('a local channel hands over timestamps with the records, and events in order', () => {
  const input = new InputChannel(0, 'test');
  const out = connectLocal(input, { credits: 16, batchSize: 4, clock: systemClock });
  script((r, ts) => out.emit(r, ts), (e) => out.sendEvent(e));
  out.flush();
  assert.deepEqual(drain(input), expected);
});

test('a ring carries each timestamp in the record frame, and events in order; untimed buffers carry no timestamps array', async () => {
  const shape = { segments: 2, segmentSize: 1024 };
  const ring = SegmentRing.create(shape);
  const out = new RingOutputChannel(ring, new InferringCodec(), systemClock);
  const input = new InputChannel(0, 'test');
  const close = connectRingInput(SegmentRing.attach(ring.buffer, shape), input, new InferringCodec(), (e) => assert.fail(String(e)));
  const got: unknown[] = [];
  script((r, ts) => out.emit(r, ts), (e) => out.sendEvent(e));
  out.flush();
  for (let i = 0; i < 50 && got.length < expected.length; i++) {
    await settle();
    got.push(...drain(input));
  }
  assert.deepEqual(got, expected);

  out.emit('plain');
  out.flush();
  await settle();
  const item = input.poll();
  assert.ok(item?.kind === 'records');
  assert.equal(item.timestamps, undefined, 'a buffer without timestamped records has no timestamps array');
  close();
  out.close();
});
