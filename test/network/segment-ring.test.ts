import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { RING_COUNTERS, SegmentRing } from '../../src/network/segment-ring.ts';

const shape = { segments: 4, segmentSize: 1024 };

function write(ring: SegmentRing, values: number[]): void {
  const seg = ring.nextSegment();
  const view = new DataView(seg.buffer, seg.byteOffset, seg.byteLength);
  values.forEach((v, i) => view.setUint32(i * 4, v, true));
  ring.publish(values.length * 4);
}

function read(ring: SegmentRing, n: number): number[] {
  const seg = ring.segment(n);
  const view = new DataView(seg.buffer, seg.byteOffset, seg.byteLength);
  return Array.from({ length: seg.byteLength / 4 }, (_, i) => view.getUint32(i * 4, true));
}

test('segments are read in the order published, and a released segment is a credit back', () => {
  const writer = SegmentRing.create(shape);
  const reader = SegmentRing.attach(writer.buffer, shape);
  assert.equal(writer.freeSegments(), 4);
  for (let i = 0; i < 4; i++) write(writer, [i, i * 10]);
  assert.equal(writer.freeSegments(), 0);
  assert.equal(reader.published(), 4);
  assert.deepEqual(read(reader, 0), [0, 0]);
  reader.release();
  assert.equal(writer.freeSegments(), 1);
  write(writer, [4, 40]);
  // The fifth segment reuses the first's memory.
  assert.deepEqual([1, 2, 3, 4].map((n) => read(reader, n)), [[1, 10], [2, 20], [3, 30], [4, 40]]);
});

test('the counters wrap at 2^31 without losing a segment or a priority event', () => {
  const writer = SegmentRing.create(shape);
  const control = new Int32Array(writer.buffer, 0, 128);
  const start = 0x7fffffff - 2;
  for (const i of [RING_COUNTERS.PUBLISHED, RING_COUNTERS.RELEASED, RING_COUNTERS.PRIORITY_WRITTEN, RING_COUNTERS.PRIORITY_READ]) control[i] = start;
  const reader = SegmentRing.attach(writer.buffer, shape);
  let n = start;
  for (let i = 0; i < 40; i++) {
    write(writer, [i]);
    writer.publishPriority(Uint8Array.of(i));
    assert.equal(writer.freeSegments(), 3);
    assert.deepEqual(read(reader, n), [i]);
    const p = reader.takePriority()!;
    assert.deepEqual([...p.bytes], [i]);
    assert.equal(p.publishedBefore, (n + 1) | 0);
    reader.release();
    n = (n + 1) | 0;
  }
  assert.ok(n < 0, 'the counters went past the wrap');
});

test('a priority event says how many segments were published before it, so the reader knows what it overtook', () => {
  const writer = SegmentRing.create(shape);
  const reader = SegmentRing.attach(writer.buffer, shape);
  write(writer, [1]);
  write(writer, [2]);
  writer.publishPriority(new TextEncoder().encode('barrier 7'));
  write(writer, [3]);
  const p = reader.takePriority()!;
  assert.equal(new TextDecoder().decode(p.bytes), 'barrier 7');
  assert.equal(p.publishedBefore, 2);
  assert.equal(reader.takePriority(), undefined);
});

test('priority slots are bounded; a full set is reported, not overwritten', () => {
  const writer = SegmentRing.create(shape);
  const reader = SegmentRing.attach(writer.buffer, shape);
  let written = 0;
  while (writer.priorityFree()) writer.publishPriority(Uint8Array.of(written++));
  assert.equal(written, 8);
  assert.throws(() => writer.publishPriority(new Uint8Array(2000)), /does not fit a slot/);
  assert.deepEqual([...reader.takePriority()!.bytes], [0]);
  assert.ok(writer.priorityFree());
});

test('waiting: a wait for data that is already there returns at once; close() ends the waits of both sides', async () => {
  const writer = SegmentRing.create(shape);
  const reader = SegmentRing.attach(writer.buffer, shape);
  const seen = reader.signal();
  write(writer, [1]);
  assert.equal(reader.waitForData(seen), undefined);
  const pendingData = reader.waitForData(reader.signal());
  assert.ok(pendingData, 'nothing new to read: the reader waits');
  // Not hungry (it has a segment to read): a publish does not wake it.
  write(writer, [1]);
  let woken = false;
  void pendingData.then(() => (woken = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(woken, false, 'a reader with something to read is not woken by a publish');
  assert.equal(reader.hungry(0), false, 'segments are there: not hungry');
  assert.equal(reader.hungry(2), true, 'read up to the last: hungry');
  for (let i = 2; i < 4; i++) write(writer, [i]);
  assert.equal(writer.freeSegments(), 0);
  await pendingData;
  const pendingCredit = writer.waitForCredit(writer.creditSignal());
  assert.ok(pendingCredit);
  writer.close();
  await pendingCredit;
  assert.ok(reader.closed);
  assert.equal(reader.waitForData(reader.signal()), undefined, 'a closed ring does not wait');
});

test('between threads: 20,000 segments from a worker arrive complete and in order, through credits and wake-ups on both sides', async () => {
  const ring = SegmentRing.create({ segments: 2, segmentSize: 256 });
  const total = 20_000;
  const worker = new Worker(
    `
    const { workerData } = require('node:worker_threads');
    const { buffer, total } = workerData;
    // The writer half, by hand: the test checks the protocol, not the class, from the other side.
    const c = new Int32Array(buffer, 0, 128);
    const bytes = new DataView(buffer);
    const dataStart = 512 + 8 * 1024;
    let i = 0;
    function pump() {
      while (i < total) {
        if (2 - ((Atomics.load(c, 0) - Atomics.load(c, 16)) | 0) === 0) {
          const seen = Atomics.load(c, 48);
          Atomics.store(c, 49, 1);
          if (2 - ((Atomics.load(c, 0) - Atomics.load(c, 16)) | 0) === 0) {
            const w = Atomics.waitAsync(c, 48, seen);
            if (w.async) return void w.value.then(pump);
          }
          Atomics.store(c, 49, 0);
          continue;
        }
        const start = dataStart + (Atomics.load(c, 0) & 1) * 256;
        bytes.setUint32(start, 4, true);
        bytes.setUint32(start + 4, i++, true);
        Atomics.store(c, 0, (Atomics.load(c, 0) + 1) | 0);
        Atomics.add(c, 32, 1);
        if (Atomics.load(c, 34) !== 0) { Atomics.store(c, 34, 0); Atomics.store(c, 33, 0); Atomics.notify(c, 32); }
      }
    }
    pump();
    setInterval(() => {}, 1000).unref();
    require('node:worker_threads').parentPort.on('message', () => process.exit(0));
    `,
    { eval: true, workerData: { buffer: ring.buffer, total } },
  );
  const got: number[] = [];
  let n = 0;
  try {
    while (got.length < total) {
      const seen = ring.signal();
      if (ring.published() === n) {
        if (ring.hungry(n)) await ring.waitForData(seen);
        continue;
      }
      const seg = ring.segment(n);
      got.push(new DataView(seg.buffer, seg.byteOffset).getUint32(0, true));
      ring.release();
      n = (n + 1) | 0;
    }
  } finally {
    worker.postMessage('stop');
    await new Promise((r) => worker.once('exit', r));
  }
  assert.equal(got.length, total);
  assert.ok(got.every((v, i) => v === i), 'every segment in order, none lost or repeated');
});

test('a debloated budget: the writer has only that many credits and fills segments up to the limit; the ring is unchanged for a relay', () => {
  const writer = SegmentRing.create({ segments: 8, segmentSize: 1024 });
  const reader = SegmentRing.attach(writer.buffer, { segments: 8, segmentSize: 1024 });
  assert.equal(writer.credits(), 8, 'no budget: the whole ring');
  reader.setBudget(2, 300);
  assert.deepEqual(writer.budget(), { segments: 2, fillBytes: 300 });
  assert.equal(writer.credits(), 2);
  assert.equal(writer.nextWritableSegment().byteLength, 300, 'published once it holds the budget');
  assert.equal(writer.nextSegment().byteLength, 1020, 'the whole segment stays there for what does not fit');
  write(writer, [1]);
  write(writer, [2]);
  assert.equal(writer.credits(), 0, 'two in flight: no credit');
  assert.equal(writer.freeSegments(), 6, 'the ring has room, for whoever relays without a budget');
  assert.equal(reader.bytesRead, 0);
  assert.deepEqual(read(reader, 0), [1]);
  assert.equal(reader.bytesRead, 4, 'the reader counts what it read: its throughput');
  reader.release();
  assert.equal(writer.credits(), 1);
  reader.setBudget(8, 5000);
  assert.deepEqual(writer.budget(), { segments: 8, fillBytes: 1020 }, 'a budget of the whole ring is none');
  assert.equal(writer.credits(), 7);
});

test('a larger budget wakes a writer waiting for credit', async () => {
  const writer = SegmentRing.create(shape);
  const reader = SegmentRing.attach(writer.buffer, shape);
  reader.setBudget(1, 0);
  write(writer, [1]);
  assert.equal(writer.credits(), 0);
  const wait = writer.waitForCredit(writer.creditSignal());
  assert.ok(wait, 'the writer waits');
  reader.setBudget(4, 0);
  const woken = await Promise.race([wait.then(() => 'woken'), new Promise((r) => setTimeout(() => r('still waiting'), 2000))]);
  assert.equal(woken, 'woken');
  assert.equal(writer.credits(), 3);
});
