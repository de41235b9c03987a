// A two-input job with unaligned checkpoints under backpressure on one input only: the join spends
// time on each order (input 1), whose source is far faster, while payments (input 2) trickle in.
// Barriers overtake the orders queued in front of the join; those are persisted as the input
// channel state of the orders' edge, and replayed into input 1 (processElement1) on restore. With
// injected failures the committed output must equal the independent computation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, type JobListener, type JobMaster } from '../../src/index.ts';
import { readMetadata, type CheckpointMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { diffSortedLines, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { expectedJoin } from '../fixtures/two-input-data.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'two-inputs.ts');
let root: string;
before(() => {
  root = makeTempDir('two-input-unaligned');
});
after(() => removeDir(root));

/** Records of input channel state per edge id. */
function inputChannelState(metadata: CheckpointMetadata): Map<number, number> {
  const byEdge = new Map<number, number>();
  for (const op of metadata.operators) {
    for (const s of op.subtasks) {
      for (const [key, h] of Object.entries(s.inputChannels ?? {})) {
        const edge = Number(key.split(':')[0]);
        byEdge.set(edge, (byEdge.get(edge) ?? 0) + h.records);
      }
    }
  }
  return byEdge;
}

// The set-up keeps the payments' edge free of backpressure: the gate reads its channels round
// robin one buffer at a time, so with one record per buffer the join takes a payment for every
// order it takes, and (two join subtasks in one thread, 2 ms per order) it could take payments
// about five times as fast as they come (100/s, paced by the generator one record per poll: the
// throttled wrapper let them come in batches, as fast as the join took them, and their edge
// filled up like the orders'). So the orders' edge is full (8 credits of one record) while the
// orders last, and the payments' holds a record now and then. Failures in the join come after
// 200-400 records of an attempt, while orders are still queued, so that a restore replays some.
test('unaligned, backpressure on input 1 only: in-flight orders are channel state of their edge, restored into input 1; output exact', async () => {
  const count = 1000;
  const output = join(root, 'output');
  const events = new JobEvents();
  const metadata: Array<Promise<CheckpointMetadata | undefined>> = [];
  let master!: JobMaster;
  const restoredPersisted: number[] = [];
  const listener: JobListener = {
    ...events.listener,
    onCheckpointCompleted: (c) => {
      events.listener.onCheckpointCompleted!(c);
      // Read at once: a later checkpoint subsumes (deletes) it.
      metadata.push(readMetadata(c.directory).then((m) => m.metadata, () => undefined));
    },
    onRestored: (info) => {
      restoredPersisted.push(master.checkpoints.stats.get(info.checkpointId)?.persistedData ?? 0);
      events.listener.onRestored!(info);
    },
  };
  master = await createJobMaster({
    job: JOB,
    args: ['--kind', 'join', '--output', output, '--count', String(count), '--rate', '100000', '--payments-rate', '100', '--spin-first-us', '2000', '--checkpoint-interval', '100'],
    config: {
      'parallelism.default': 2,
      'execution.checkpointing.dir': join(root, 'checkpoints'),
      'execution.checkpointing.unaligned.enabled': true,
      'taskmanager.network.buffer-records': 1,
      'taskmanager.network.credits-per-channel': 8,
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 20,
      'restart-strategy.fixed-delay.delay': '20 ms',
    },
    faults: { failures: 2, seed: 3, vertexNameContains: 'Join', minRecords: 200, maxRecords: 400 },
    listener,
    log: createLogger({ level: 'error', write: () => {} }),
  });
  const result = await master.run();
  assert.equal(result.status, 'FINISHED', `${result.error?.message}; ${events.describe()}`);

  const join1 = master.graph.vertices.find((v) => v.name.startsWith('Join'))!;
  const orders = join1.inputs.find((e) => e.inputIndex === 0)!.id;
  const payments = join1.inputs.find((e) => e.inputIndex === 1)!.id;
  const read = (await Promise.all(metadata)).filter((m): m is CheckpointMetadata => m !== undefined).map(inputChannelState);
  const persistedOrders = read.map((m) => m.get(orders) ?? 0);
  const persistedPayments = read.map((m) => m.get(payments) ?? 0);
  if (process.env.WEIR_TEST_DEBUG) console.log({ orders, payments }, master.checkpoints.stats.history().map((s) => `${s.id}@${s.triggerTimestamp - master.checkpoints.stats.history()[0]!.triggerTimestamp}:${s.endToEndDuration} persisted=${s.persistedData}`).join(', '), read.map((m) => JSON.stringify([...m])), events.describe(), JSON.stringify(master.checkpoints.stats.history()[1]));
  assert.ok(persistedOrders.filter((n) => n > 0).length >= 2, `few checkpoints persisted in-flight orders: ${persistedOrders.join(', ')}`);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  assert.ok(sum(persistedOrders) > 4 * sum(persistedPayments), `the backpressured input holds the in-flight data: orders ${sum(persistedOrders)}, payments ${sum(persistedPayments)}`);
  assert.ok(restoredPersisted.some((n) => n > 0), `no restore replayed in-flight data: ${restoredPersisted.join(', ')}; ${events.describe()}`);

  const diff = diffSortedLines(readCommittedLines(output), expectedJoin(count));
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
});
