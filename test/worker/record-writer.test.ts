// RecordWriter: records leave in batches per channel, in order; with one channel every
// partitioner's records go to it (a broadcast once), without asking the selector.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connectLocal } from '../../src/network/local-channel.ts';
import { systemClock } from '../../src/clock/clock.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { RecordWriter } from '../../src/worker/record-writer.ts';
import { BROADCAST, createChannelSelector } from '../../src/worker/partitioner.ts';
import type { PartitionerSpec } from '../../src/api/transformation.ts';

/** Every record buffer each channel received, in order. */
function received(inputs: InputChannel[]): unknown[][][] {
  return inputs.map((ch) => {
    const buffers: unknown[][] = [];
    for (let item = ch.poll(); item !== undefined; item = ch.poll()) if (item.kind === 'records') buffers.push(item.records);
    return buffers;
  });
}

function writer(channels: number, select: (r: unknown) => number, batch: number): { w: RecordWriter; inputs: InputChannel[] } {
  const inputs = Array.from({ length: channels }, (_, i) => new InputChannel(i, `channel ${i}`));
  return { w: new RecordWriter(inputs.map((ch) => connectLocal(ch, { credits: 1000, batchSize: batch, clock: systemClock, maxBacklog: 1000 })), select), inputs };
}

describe('RecordWriter', () => {
  const partitioners: PartitionerSpec[] = [{ kind: 'forward' }, { kind: 'rebalance' }, { kind: 'broadcast' }, { kind: 'hash', keySelector: (r) => String(r) }];

  for (const spec of partitioners) {
    test(`one channel, ${spec.kind}: every record once, in order, in batches`, () => {
      const { w, inputs } = writer(1, createChannelSelector(spec, 1, 0, 128), 4);
      for (let i = 0; i < 10; i++) w.emit(i);
      assert.deepEqual(received(inputs), [[[0, 1, 2, 3], [4, 5, 6, 7]]]);
      w.flushAll();
      assert.deepEqual(received(inputs), [[[8, 9]]]);
      assert.equal(w.recordsOut, 10);
    });
  }

  test('one channel: the selector is not asked', () => {
    const { w, inputs } = writer(1, () => assert.fail('the selector was called'), 2);
    w.emit('a');
    w.emit('b');
    assert.deepEqual(received(inputs), [[['a', 'b']]]);
  });

  test('several channels: each record goes where the selector says, a broadcast to all', () => {
    const { w, inputs } = writer(3, (r) => (r === 'all' ? BROADCAST : (r as number) % 3), 2);
    for (const r of [0, 1, 2, 'all', 3, 4]) w.emit(r);
    w.flushAll();
    assert.deepEqual(received(inputs), [[[0, 'all'], [3]], [[1, 'all'], [4]], [[2, 'all']]]);
    assert.equal(w.recordsOut, 6);
  });
});
