// A channel between two threads over a shared-memory ring, both halves in this thread (the
// wake-ups are the same Atomics either way; test/network/segment-ring.test.ts crosses a real
// worker thread): records of every size and events arrive in order, a full ring is backpressure,
// priority events overtake published segments and say so, an aligned barrier stuck in the writer's
// backlog or in the ring is converted at its deadline, and a segment that cannot be decoded fails
// the reader's side with the facts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { systemClock } from '../../src/clock/clock.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectRingInput } from '../../src/network/ring-input.ts';
import { RingOutputChannel } from '../../src/network/ring-output-channel.ts';
import { SegmentRing } from '../../src/network/segment-ring.ts';
import type { Barrier, ChannelItem } from '../../src/network/stream-event.ts';
import { InferringCodec } from '../../src/serialization/inferring-codec.ts';
import { compileCodec } from '../../src/serialization/compile-codec.ts';
import { Types } from '../../src/serialization/types.ts';
import { ManualClock } from '../fixtures/manual-clock.ts';

function channel(shape = { segments: 2, segmentSize: 1024 }, clock: ManualClock | typeof systemClock = systemClock) {
  const ring = SegmentRing.create(shape);
  const output = new RingOutputChannel(ring, new InferringCodec(), clock);
  const input = new InputChannel(0, 'from the writer');
  const errors: unknown[] = [];
  const close = connectRingInput(SegmentRing.attach(ring.buffer, shape), input, new InferringCodec(), (e) => errors.push(e));
  return { ring, output, input, errors, close };
}

/** Lets the Atomics wake-ups (promise callbacks) run. */
const settle = () => new Promise((r) => setImmediate(r));

function take(input: InputChannel): Array<string | unknown> {
  const out: unknown[] = [];
  for (let item = input.poll(); item; item = input.poll()) out.push(...describe(item));
  return out;
}

function describe(item: ChannelItem): unknown[] {
  if (item.kind === 'records') return item.records;
  return [`<${item.kind}${item.kind === 'barrier' ? ` ${item.checkpointId}${item.options.unaligned ? ' unaligned' : ''}` : ''}>`];
}

const barrier = (id: number, timestamp: number, o: { unaligned?: boolean; alignedTimeout?: number } = {}): Barrier => ({
  kind: 'barrier',
  checkpointId: id,
  timestamp,
  options: { type: 'checkpoint', unaligned: o.unaligned ?? false, alignedTimeout: o.alignedTimeout ?? 0, targetDir: '/nonexistent' },
});

test('records small and larger than a segment, and events, arrive in order through a ring of two segments', async () => {
  const { output, input, close } = channel();
  const records = [
    { word: 'a', count: 1 },
    { word: 'x'.repeat(3000), count: 2 },
    { word: 'b', count: 3 },
    { word: 'y'.repeat(700), count: 4 },
  ];
  const got: unknown[] = [];
  for (let round = 0; round < 50; round++) {
    for (const r of records) output.emit({ ...r, count: r.count + round * 10 });
    output.sendEvent(barrier(round + 1, Date.now()));
    // The reader takes what it can; the writer goes on as segments come back.
    for (let i = 0; i < 20 && (got.length < (round + 1) * 5 || !output.writable); i++) {
      await settle();
      got.push(...take(input));
    }
  }
  const expected = Array.from({ length: 50 }, (_, round) => [...records.map((r) => ({ ...r, count: r.count + round * 10 })), `<barrier ${round + 1}>`]).flat();
  assert.deepEqual(got, expected);
  close();
});

test('a full ring is backpressure: the writer is not writable until the reader takes segments, and is told when it is', async () => {
  const { output, input, close } = channel({ segments: 2, segmentSize: 256 });
  let writableAgain = 0;
  output.onWritable = () => writableAgain++;
  let sent = 0;
  while (output.writable && sent < 10_000) output.emit({ word: `w${sent}`, count: sent++ });
  assert.ok(sent < 10_000, 'two segments of 256 bytes hold far fewer records');
  assert.equal(output.usage, 1);
  await settle();
  assert.equal(writableAgain, 0, 'nobody read: still blocked');
  const got: unknown[] = [];
  for (let i = 0; i < 50 && got.length < sent; i++) {
    got.push(...take(input));
    await settle();
  }
  output.flush();
  await settle();
  got.push(...take(input));
  assert.ok(writableAgain >= 1, 'the writer was told it may write again');
  assert.deepEqual(got.map((r) => (r as { count: number }).count), Array.from({ length: sent }, (_, i) => i));
  close();
});

test('a priority barrier overtakes the segments published before it, and the input channel knows exactly which records it overtook', async () => {
  const { output, input, close } = channel({ segments: 4, segmentSize: 512 });
  for (let i = 0; i < 10; i++) output.emit(i);
  output.flush();
  for (let i = 10; i < 20; i++) output.emit(i);
  output.sendPriority(barrier(7, Date.now(), { unaligned: true }));
  for (let i = 20; i < 25; i++) output.emit(i);
  output.flush();
  await settle();
  assert.deepEqual(describe(input.peek()!), ['<barrier 7 unaligned>'], 'the barrier is first');
  assert.deepEqual(input.startRecording(7).flat(), Array.from({ length: 20 }, (_, i) => i), 'it overtook the records published before it, not those after');
  close();
});

test('an aligned barrier stuck behind a full ring is converted at its deadline: it overtakes everything, and the writer reports what was still in its backlog', async () => {
  const clock = new ManualClock(Date.now());
  const { output, input, close } = channel({ segments: 1, segmentSize: 256 }, clock);
  let n = 0;
  while (output.writable) output.emit(n++);
  const settled = output.sendEvent(barrier(3, clock.now(), { alignedTimeout: 100 }));
  assert.ok(settled, 'the barrier waits behind the backlog');
  clock.advance(100);
  await settle();
  const first = input.poll()!;
  assert.deepEqual(describe(first), ['<barrier 3 unaligned>']);
  const overtaken = (await settled)!;
  assert.ok(overtaken.length > 0, 'records waited in the backlog');
  const inRing = input.startRecording(3).flat();
  assert.deepEqual([...inRing, ...overtaken], Array.from({ length: n }, (_, i) => i), 'what the ring held and what the backlog held: every record before the barrier, once');
  close();
});

test('an aligned barrier sent into the ring but not yet read at its deadline is converted on the reader\'s side', async () => {
  const clock = new ManualClock(Date.now());
  const { output, input, close } = channel({ segments: 4, segmentSize: 512 }, clock);
  for (let i = 0; i < 5; i++) output.emit(i);
  assert.equal(output.sendEvent(barrier(4, clock.now(), { alignedTimeout: 50 })), undefined, 'room in the ring: it went at once');
  await settle();
  clock.advance(50);
  await settle();
  assert.deepEqual(describe(input.poll()!), ['<barrier 4 unaligned>']);
  assert.deepEqual(input.startRecording(4).flat(), [0, 1, 2, 3, 4]);
  close();
});

test('a record that does not fit the declared type fails the writer with the field path and the actual type', () => {
  const ring = SegmentRing.create({ segments: 2, segmentSize: 1024 });
  const output = new RingOutputChannel(ring, compileCodec(Types.struct({ word: Types.string, count: Types.int })), systemClock);
  assert.throws(() => output.emit({ word: 'a', count: 'many' }), (e: Error & { path?: string; actual?: string }) => e.path === '$.count' && /string/.test(e.actual ?? ''));
  output.close();
});

test('a segment that cannot be decoded fails the reading side, naming what was wrong', async () => {
  const shape = { segments: 2, segmentSize: 256 };
  const ring = SegmentRing.create(shape);
  const input = new InputChannel(0, 'from a broken writer');
  const errors: Error[] = [];
  const close = connectRingInput(SegmentRing.attach(ring.buffer, shape), input, new InferringCodec(), (e) => errors.push(e as Error));
  const seg = ring.nextSegment();
  seg[0] = 0x7f;
  ring.publish(1);
  await settle();
  assert.equal(errors.length, 1);
  assert.match(errors[0]!.message, /frame of kind 127/);
  close();
});

test('a writer whose reader closed the ring (its task was cancelled) does not wait for credit that cannot come', { timeout: 10_000 }, async () => {
  const { output, close } = channel({ segments: 2, segmentSize: 256 });
  let sent = 0;
  while (output.writable && sent < 10_000) output.emit({ word: `w${sent}`, count: sent++ });
  assert.equal(output.writable, false, 'the ring is full');
  close();
  // The writer's task goes on until its own cancellation reaches it: more records must not spin
  // the thread (a wait on a closed ring returns at once), and the thread must stay responsive.
  for (let i = 0; i < 10; i++) output.emit({ word: 'late', count: i });
  await settle();
  assert.equal(output.writable, false);
});

test('a record larger than the whole ring, with nothing after it, goes on as the reader frees segments (from a writer in another thread)', { timeout: 30_000 }, async () => {
  const shape = { segments: 2, segmentSize: 256 };
  const ring = SegmentRing.create(shape);
  const input = new InputChannel(0, 'from the writer thread');
  const errors: unknown[] = [];
  // 20 segments' worth: emit() fills the 2 segments and returns with the rest waiting for credit.
  const records = [{ word: 'x'.repeat(5_000), count: 1 }];
  // tsx's hooks are per thread: the worker registers them before it imports the thread module.
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('../fixtures/span-writer-thread.ts', import.meta.url).href)}); })`;
  const writer = new Worker(code, { eval: true, workerData: { buffer: ring.buffer, shape, records } });
  const exited = new Promise((resolve) => writer.once('exit', resolve));
  let close = () => {};
  try {
    // The reader starts once emit() has returned: every credit comes back to a writer waiting for it.
    await new Promise((resolve, reject) => {
      writer.once('message', resolve);
      writer.once('error', reject);
    });
    close = connectRingInput(SegmentRing.attach(ring.buffer, shape), input, new InferringCodec(), (e) => errors.push(e));
    const got: unknown[] = [];
    // Bounded: a writer that does not go on shows as a record that never arrives (its thread spun
    // in microtasks once credit came back while only the span was left to send).
    for (let i = 0; i < 2_000 && got.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 5));
      got.push(...take(input));
    }
    assert.deepEqual(errors, []);
    assert.deepEqual(got, records, 'the record larger than the ring arrived whole');
  } finally {
    writer.postMessage('done');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
    await writer.terminate();
    close();
  }
});
