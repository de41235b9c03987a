// A task with two logical inputs (connect): records go to processElement1/2 by the edge of their
// channel, the watermark is the minimum over both inputs, barriers align across the channels of
// both inputs, and each input's end is seen on its own before the task's end of input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../../src/log/logger.ts';
import { defineJob } from '../../src/index.ts';
import type { CoProcessFunction } from '../../src/index.ts';
import { channelStateKey } from '../../src/checkpoint/channel-state-key.ts';
import { systemClock } from '../../src/clock/clock.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectLocal } from '../../src/network/local-channel.ts';
import type { ChannelItem } from '../../src/network/stream-event.ts';
import { InputGate } from '../../src/worker/input-gate.ts';
import { RecordWriter } from '../../src/worker/record-writer.ts';
import { Task } from '../../src/worker/task.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';
import type { FromTaskExecutor } from '../../src/rpc/control-protocol.ts';

const barrier = (checkpointId: number): ChannelItem => ({
  kind: 'barrier',
  checkpointId,
  timestamp: Date.now(),
  options: { type: 'checkpoint', unaligned: false, alignedTimeout: 0, targetDir: '/nonexistent' },
});
const unalignedBarrier = (checkpointId: number): ChannelItem => ({
  kind: 'barrier',
  checkpointId,
  timestamp: Date.now(),
  options: { type: 'checkpoint', unaligned: true, alignedTimeout: 0, targetDir: '/nonexistent' },
});
const records = (...values: unknown[]): ChannelItem => ({ kind: 'records', records: values, bytes: 0 });
const watermark = (timestamp: number): ChannelItem => ({ kind: 'watermark', timestamp });

/** Tags each record with its input and reports each input's watermark as the function sees it. */
const tagging: CoProcessFunction<string, number, string> = {
  processElement1: (v, ctx, out) => out.collect(`1:${v}@${ctx.timerService().currentWatermark()}`),
  processElement2: (v, ctx, out) => out.collect(`2:${v}@${ctx.timerService().currentWatermark()}`),
  endInput: (out) => out.collect('end'),
};

async function twoInputTask() {
  const { jobGraph } = await defineJob((env) => {
    env.setParallelism(2);
    const words = env.fromSource(new CollectionSource(['a']), { uid: 'words' });
    const numbers = env.fromSource(new CollectionSource([1]), { uid: 'numbers' });
    words.connect(numbers).process(tagging, { uid: 'co', name: 'Co' }).sinkTo(new CollectSink<string>('two-input-unused'), { uid: 'sink', chaining: false });
  }).plan([]);
  const co = jobGraph.vertices.find((v) => v.name.startsWith('Co'))!;
  const [first, second] = [0, 1].map((i) => co.inputs.find((e) => e.inputIndex === i)!);
  assert.ok(first && second, 'the co-process vertex has an edge per input');
  assert.notEqual(first.source.id, second.source.id);
  // Subtask 0 reads both sources' two subtasks: channels 0, 1 of input 1, channels 2, 3 of input 2.
  const channels = [
    new InputChannel(0, 'words 1', channelStateKey(first.id, 0)),
    new InputChannel(1, 'words 2', channelStateKey(first.id, 1)),
    new InputChannel(2, 'numbers 1', channelStateKey(second.id, 0)),
    new InputChannel(3, 'numbers 2', channelStateKey(second.id, 1)),
  ];
  const gate = new InputGate(channels);
  const downstream = new InputChannel(0, 'sink');
  const writers = new Map([[co.outputs[0]!.id, new RecordWriter([connectLocal(downstream, { credits: 100, batchSize: 1, clock: systemClock, maxBacklog: 100 })], () => 0)]]);
  const reports: FromTaskExecutor[] = [];
  const snapshots: unknown[][] = [];
  const channelState: Array<{ inputs: Array<readonly [string, unknown[]]> }> = [];
  const task = new Task({
    jobId: 'b'.repeat(32),
    jobName: 'test job',
    attempt: 0,
    vertex: co,
    subtask: 0,
    gate,
    writers,
    splits: [],
    restore: null,
    barrierMode: 'aligned',
    report: (m) => reports.push(m),
    wake: () => {},
    storage: {
      writeSnapshot: async () => {
        snapshots.push(drain(downstream));
        return { operators: [], inputChannels: {}, outputChannels: {} };
      },
      writeChannelState: async (_target, _task, channels) => {
        channelState.push({ inputs: [...channels.inputs].map(([k, v]) => [String(k), v] as const) });
        return { inputChannels: {}, outputChannels: {} };
      },
      readChannelState: () => [],
      restoreKeyed: async () => {},
    },
    log: silentLogger,
  });
  await task.initialize();
  const run = async () => {
    for (let i = 0; i < 100 && task.step() === 'busy'; i++);
    await new Promise((r) => setImmediate(r));
    for (let i = 0; i < 100 && task.step() === 'busy'; i++);
  };
  return { task, channels, gate, downstream, run, snapshots, reports, channelState, edges: [first.id, second.id] as const };
}

test('records reach processElement1 or 2 by the input their channel belongs to', async () => {
  const { channels, downstream, run } = await twoInputTask();
  channels[0]!.deliver(records('a'));
  channels[3]!.deliver(records(7));
  channels[1]!.deliver(records('b'));
  channels[2]!.deliver(records(8));
  await run();
  assert.deepEqual(drain(downstream).sort(), ['1:a@-Infinity', '1:b@-Infinity', '2:7@-Infinity', '2:8@-Infinity']);
});

test('the watermark is the minimum over both inputs: one input alone does not advance it', async () => {
  const { channels, downstream, run } = await twoInputTask();
  channels[0]!.deliver(watermark(50));
  channels[1]!.deliver(watermark(60));
  channels[0]!.deliver(records('a'));
  await run();
  assert.deepEqual(drain(downstream), ['1:a@-Infinity'], 'input 2 has no watermark yet: the operator sees none');
  channels[2]!.deliver(watermark(40));
  channels[3]!.deliver(watermark(70));
  channels[2]!.deliver(records(1));
  await run();
  assert.deepEqual(drain(downstream), ['wm-40', '2:1@40'], 'the minimum over the four channels of both inputs');
  channels[2]!.deliver(watermark(100));
  channels[2]!.deliver(records(2));
  await run();
  assert.deepEqual(drain(downstream), ['wm-50', '2:2@50'], 'now input 1 holds it back');
});

test('aligned: a barrier on input 1 holds that channel back until every channel of both inputs brought it', async () => {
  const { channels, gate, downstream, run, snapshots } = await twoInputTask();
  channels[0]!.deliver(barrier(1));
  channels[0]!.deliver(records('after'));
  channels[1]!.deliver(records('b'));
  channels[1]!.deliver(barrier(1));
  channels[2]!.deliver(barrier(1));
  channels[3]!.deliver(records(5));
  await run();
  assert.equal(snapshots.length, 0, 'input 2 still owes a barrier on one channel');
  assert.ok(gate.isBlocked(0) && gate.isBlocked(1) && gate.isBlocked(2), 'channels that brought the barrier are held back, whichever input');
  assert.ok(!gate.isBlocked(3));
  channels[3]!.deliver(barrier(1));
  await run();
  assert.equal(snapshots.length, 1, 'the snapshot follows the last barrier of either input');
  const [beforeBarrier, sent] = [snapshots[0]!.slice(0, -1), snapshots[0]!.at(-1)];
  assert.deepEqual(beforeBarrier.sort(), ['1:b@-Infinity', '2:5@-Infinity'], 'records before the barriers are in the snapshot’s past');
  assert.equal(sent, 'barrier-1', 'the barrier goes downstream with the snapshot');
  assert.deepEqual(drain(downstream), ['1:after@-Infinity'], 'the held record comes after the barrier');
});

test('unaligned, backpressure on input 1 only: its queued records are overtaken and become its channels’ state', async () => {
  const { channels, run, channelState, edges } = await twoInputTask();
  // Input 1's channels are full (the task has not got to them); input 2 has nothing queued.
  channels[0]!.deliver(records('a1', 'a2'));
  channels[0]!.deliver(records('a3'));
  channels[1]!.deliver(records('b1'));
  for (const c of channels) c.deliverPriority(unalignedBarrier(1));
  await run();
  await new Promise((r) => setImmediate(r));
  assert.equal(channelState.length, 1, 'the unaligned snapshot wrote channel state');
  const byKey = new Map(channelState[0]!.inputs.map(([k, v]) => [k, v.flat()]));
  assert.deepEqual(byKey.get(`${edges[0]}:0`), ['a1', 'a2', 'a3'], 'input 1, channel 1: what the barrier overtook');
  assert.deepEqual(byKey.get(`${edges[0]}:1`), ['b1']);
  assert.deepEqual([...(byKey.get(`${edges[1]}:0`) ?? []), ...(byKey.get(`${edges[1]}:1`) ?? [])], [], 'input 2 had nothing in flight');
});

test('each input ends on its own; the task ends its input once both have', async () => {
  const { task, channels, downstream, run, reports } = await twoInputTask();
  const end: ChannelItem = { kind: 'end-of-data' };
  channels[0]!.deliver(end);
  channels[1]!.deliver(end);
  channels[2]!.deliver(records(3));
  await run();
  assert.deepEqual(drain(downstream), ['2:3@-Infinity'], 'input 2 is read on after input 1 ended');
  assert.equal(task.status, 'running');
  channels[2]!.deliver(end);
  channels[3]!.deliver(end);
  await run();
  await run();
  assert.equal(task.status, 'end-of-data');
  assert.deepEqual(drain(downstream), ['wm-Infinity', 'end'], 'the end of event time, then endInput, once both inputs ended');
  assert.ok(reports.some((m) => m.type === 'updateTaskStatus' && m.status === 'end-of-data'));
});

/** What reached the downstream channel: records, 'barrier-N' and 'wm-T' markers. */
function drain(channel: InputChannel): unknown[] {
  const out: unknown[] = [];
  for (let item = channel.poll(); item; item = channel.poll()) {
    if (item.kind === 'records') out.push(...item.records);
    else if (item.kind === 'barrier') out.push(`barrier-${item.checkpointId}`);
    else if (item.kind === 'watermark') out.push(`wm-${item.timestamp}`);
  }
  return out;
}
