// A slot's buffer debloating: each period, a receiving subtask's consumption of its rings is
// measured and every one of its rings gets the budget (set by the reader, obeyed by the writer).
// The periods are driven by hand (resize with a time); the timer's period is an hour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SegmentRing } from '../../src/network/segment-ring.ts';
import { InputDebloating } from '../../src/worker/input-debloating.ts';
import { taskKey } from '../../src/ids/task-key.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { InputGate } from '../../src/worker/input-gate.ts';

const shape = { segments: 8, segmentSize: 1024 };

/** The writer publishes `bytes` into the ring and the reader reads and releases it. */
function flow(ring: SegmentRing, bytes: number): void {
  const reader = ring;
  ring.nextSegment();
  ring.publish(bytes);
  reader.segment((reader.published() - 1) | 0);
  reader.release();
}

test('each period every ring of a subtask gets the budget of its consumption over the target', () => {
  const debloating = new InputDebloating({ targetMs: 1000, periodMs: 3_600_000, samples: 1 });
  const consumer = taskKey('sum', 0);
  const [a, b] = [SegmentRing.create(shape), SegmentRing.create(shape)];
  const channels = [new InputChannel(0, 'from a'), new InputChannel(1, 'from b')];
  const gate = new InputGate(channels);
  debloating.add(consumer, a, channels[0]!);
  debloating.add(consumer, b, channels[1]!);
  // Before the first period: two whole segments' bytes each (two in the ring and the one its
  // reader decodes: three of 680 B), so a job that starts under backpressure does not fill whole
  // rings that its first checkpoints would wait for.
  assert.deepEqual(a.budget(), { segments: 2, fillBytes: 680 });
  assert.deepEqual(b.budget(), { segments: 2, fillBytes: 680 });
  assert.deepEqual(gate.debloated, { bytes: 2040 }, 'the figure before the first period');
  const stop = debloating.start();
  try {
    // Whole milliseconds: (t0 + 1000) - t0 is then exactly 1000 (with a fraction it may be off by an ulp and a budget by a byte).
    const t0 = Math.ceil(performance.now());
    debloating.resize(t0);
    for (let i = 0; i < 3; i++) flow(a, 1000);
    flow(b, 1000);
    // 4,000 B in 1 s over 2 channels: 2,000 B each, under three whole segments (two in the ring
    // and the one its reader decodes): three of 666 B.
    debloating.resize(t0 + 1000);
    assert.deepEqual(debloating.budgetOf(consumer), { segments: 2, fillBytes: 666 });
    assert.deepEqual(a.budget(), { segments: 2, fillBytes: 666 });
    assert.deepEqual(b.budget(), { segments: 2, fillBytes: 666 });
    assert.deepEqual(gate.debloated, { bytes: 1998 }, 'the figure: bytes each channel may hold ahead of a barrier');
    for (let i = 0; i < 12; i++) flow(a, 1000);
    // 12,000 B in 1 s: 6,000 B per channel, six whole segments: five in the ring and the decoded one.
    debloating.resize(t0 + 2000);
    assert.deepEqual(a.budget(), { segments: 5, fillBytes: 1020 });
    // Nothing consumed for a second (the sink stalls): the smallest budget.
    debloating.resize(t0 + 3000);
    assert.deepEqual(a.budget(), { segments: 2, fillBytes: 256 });
  } finally {
    stop();
  }
});

test('a channel within the TaskManager gets a budget in buffers of records, from the records its consumer took', async () => {
  const { connectLocal } = await import('../../src/network/local-channel.ts');
  const { systemClock } = await import('../../src/clock/clock.ts');
  const debloating = new InputDebloating({ targetMs: 1000, periodMs: 3_600_000, samples: 1 });
  const consumer = taskKey('sink', 0);
  const input = new InputChannel(0, 'local');
  const output = connectLocal(input, { credits: 16, batchSize: 100, clock: systemClock });
  debloating.add(consumer, SegmentRing.create(shape), new InputChannel(1, 'from another thread'));
  debloating.addLocal(consumer, input, 16, 100);
  const stop = debloating.start();
  try {
    // Whole milliseconds: (t0 + 1000) - t0 is then exactly 1000 (with a fraction it may be off by an ulp and a budget by a byte).
    const t0 = Math.ceil(performance.now());
    // Before the first period: two whole buffers' records (200), spread over two buffers at the
    // receiver, the sender's backlog of two and the batch it fills: five of 40.
    assert.equal(input.debloatedBufferRecords, 200);
    // Blocked with two buffers at the receiver and two in the backlog; the batch a task goes on
    // filling in its step would make the fifth.
    assert.deepEqual(emitUntilBlocked(output, input), { queued: 80, held: 160 });
    while (input.poll() !== undefined);
    output.flush();
    while (input.poll() !== undefined);
    debloating.resize(t0);
    // The consumer takes 300 records in a second: a budget of 300 records, spread over two buffers
    // at the receiver, two in the sender's backlog and the batch it fills: five of 60.
    for (let i = 0; i < 300; i++) output.emit(i);
    output.flush();
    while (input.poll() !== undefined);
    debloating.resize(t0 + 1000);
    assert.equal(input.debloatedBufferRecords, 300);
    // A task stops writing once the channel is not writable: with the batch it fills meanwhile,
    // 300 records at most ahead of the next barrier (before, 600: 300 at the receiver, two more
    // buffers of 100 in the backlog and one being filled).
    assert.deepEqual(emitUntilBlocked(output, input), { queued: 120, held: 240 });
  } finally {
    stop();
  }
});

/**
 * Writes records as a task does, until the channel stops being writable: the records the
 * receiver holds, and everything ahead of a barrier written now (at the receiver, in the backlog,
 * in the batch being filled).
 */
function emitUntilBlocked(output: { emit(r: unknown): void; readonly writable: boolean; inFlight(): unknown[] }, input: InputChannel): { queued: number; held: number } {
  for (let i = 0; output.writable && i < 100_000; i++) output.emit(i);
  let queued = 0;
  for (const item of input.queued()) if (item.kind === 'records') queued += item.records.length;
  return { queued, held: queued + output.inFlight().length };
}
