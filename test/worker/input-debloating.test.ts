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
  assert.equal(gate.debloated, undefined, 'no figure before the first period');
  const stop = debloating.start();
  try {
    // Whole milliseconds: (t0 + 1000) - t0 is then exactly 1000 (with a fraction it may be off by an ulp and a budget by a byte).
    const t0 = Math.ceil(performance.now());
    debloating.resize(t0);
    for (let i = 0; i < 3; i++) flow(a, 1000);
    flow(b, 1000);
    // 4,000 B in 1 s over 2 channels: 2,000 B each, under two whole segments: two of 1,000 B.
    debloating.resize(t0 + 1000);
    assert.deepEqual(debloating.budgetOf(consumer), { segments: 2, fillBytes: 1000 });
    assert.deepEqual(a.budget(), { segments: 2, fillBytes: 1000 });
    assert.deepEqual(b.budget(), { segments: 2, fillBytes: 1000 });
    assert.deepEqual(gate.debloated, { bytes: 2000 }, 'the figure: bytes each channel may hold');
    for (let i = 0; i < 12; i++) flow(a, 1000);
    // 12,000 B in 1 s: 6,000 B per channel, six whole segments.
    debloating.resize(t0 + 2000);
    assert.deepEqual(a.budget(), { segments: 6, fillBytes: 1020 });
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
    debloating.resize(t0);
    // The consumer takes 300 records in a second: a budget of two buffers of 150 records.
    for (let i = 0; i < 300; i++) output.emit(i);
    output.flush();
    while (input.poll() !== undefined);
    debloating.resize(t0 + 1000);
    // Now the sender keeps at most two buffers of 150 in flight; a third waits in its backlog.
    for (let i = 0; i < 450; i++) output.emit(i);
    let queued = 0;
    for (const item of input.queued()) if (item.kind === 'records') queued += item.records.length;
    assert.equal(queued, 300, 'two buffers of 150 records in flight, the rest held back');
    assert.equal(input.debloatedBufferRecords, 300);
    assert.equal(output.writable, true, 'one buffer waiting: still within the backlog the writer may hold');
  } finally {
    stop();
  }
});
