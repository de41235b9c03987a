// Splits the enumerator assigns while a reader's subtask stops are never lost from view: those
// still in the mailbox go with the subtask's final positions, those that arrive after it stopped
// are reported back as undelivered (an at-most-once restart reads them; without this its
// enumerator waits for ever for a range no reader has).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineJob } from '../../src/index.ts';
import type { Source, SourceReader } from '../../src/api/source.ts';
import type { FromTaskExecutor } from '../../src/rpc/control-protocol.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectLocal } from '../../src/network/local-channel.ts';
import { systemClock } from '../../src/clock/clock.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { RecordWriter } from '../../src/worker/record-writer.ts';
import { Task } from '../../src/worker/task.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';

interface Range {
  readonly id: number;
}

class RangeReader implements SourceReader<number, Range> {
  readonly splits: Range[] = [];
  addSplits(splits: Range[]): void {
    this.splits.push(...splits);
  }
  notifyNoMoreSplits(): void {}
  pollNext(): 'nothing' {
    return 'nothing';
  }
  isAvailable(): Promise<void> {
    return new Promise(() => {});
  }
  snapshotState(): Range[] {
    return [...this.splits];
  }
}

async function sourceTask(): Promise<{ task: Task; reports: FromTaskExecutor[] }> {
  const source: Source<number, Range> = {
    boundedness: 'bounded',
    createSplits: () => [],
    createEnumerator: () => ({ handleSplitRequest: () => {}, snapshotState: () => ({}) }),
    createReader: () => new RangeReader(),
  };
  const job = defineJob((env) => {
    env.setParallelism(1);
    env.fromSource(source, { uid: 'source', name: 'Source' }).rebalance().sinkTo(new CollectSink<number>('task-splits-unused'), { uid: 'sink' });
  });
  const { jobGraph } = await job.plan([]);
  const vertex = jobGraph.vertices.find((v) => v.isSource)!;
  const downstream = new InputChannel(0, 'sink');
  const writers = new Map([[vertex.outputs[0]!.id, new RecordWriter([connectLocal(downstream, { credits: 100, batchSize: 1, clock: systemClock, maxBacklog: 100 })], () => 0)]]);
  const reports: FromTaskExecutor[] = [];
  const task = new Task({
    jobId: 'a'.repeat(32),
    jobName: 'test job',
    attempt: 3,
    vertex,
    subtask: 0,
    writers,
    splits: [{ id: 1 }],
    restore: null,
    barrierMode: 'aligned',
    report: (m) => reports.push(m),
    wake: () => {},
    storage: {
      writeSnapshot: async () => ({ operators: [], inputChannels: {}, outputChannels: {} }),
      writeChannelState: async () => ({ inputChannels: {}, outputChannels: {} }),
      readChannelState: () => [],
      restoreKeyed: async () => {},
    },
    log: silentLogger,
    gate: undefined,
  });
  await task.initialize();
  for (let i = 0; i < 10 && task.step() === 'busy'; i++);
  return { task, reports };
}

const failedPositions = (reports: FromTaskExecutor[]) => reports.find((m) => m.type === 'updateTaskStatus' && m.status === 'failed') as Extract<FromTaskExecutor, { type: 'updateTaskStatus' }> | undefined;

test("splits still in the mailbox when the subtask fails go with its final positions, once", async () => {
  const { task, reports } = await sourceTask();
  task.addSplits([{ id: 2 }, { id: 3 }], false);
  task.fail(new Error('injected'));
  assert.deepEqual(failedPositions(reports)?.positions, [{ id: 1 }, { id: 2 }, { id: 3 }]);
  task.step();
  assert.equal(reports.filter((m) => m.type === 'splitsUndelivered').length, 0, 'not reported a second time');
});

test('splits that reach a subtask that has stopped are reported back as undelivered', async () => {
  const { task, reports } = await sourceTask();
  task.fail(new Error('injected'));
  assert.deepEqual(failedPositions(reports)?.positions, [{ id: 1 }]);
  task.addSplits([{ id: 4 }], false);
  task.addSplits([], true);
  const back = reports.filter((m) => m.type === 'splitsUndelivered');
  assert.deepEqual(back, [{ type: 'splitsUndelivered', attempt: 3, vertexId: failedPositions(reports)!.vertexId, subtask: 0, splits: [{ id: 4 }] }]);
});

test('splits delivered while the subtask runs are the reader’s, not reported back', async () => {
  const { task, reports } = await sourceTask();
  task.addSplits([{ id: 5 }], false);
  for (let i = 0; i < 10 && task.step() === 'busy'; i++);
  task.fail(new Error('injected'));
  assert.deepEqual(failedPositions(reports)?.positions, [{ id: 1 }, { id: 5 }]);
  assert.equal(reports.filter((m) => m.type === 'splitsUndelivered').length, 0);
});
