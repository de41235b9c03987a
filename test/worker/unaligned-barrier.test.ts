import { test } from 'node:test';
import { silentLogger } from '../../src/log/logger.ts';
import assert from 'node:assert/strict';
import { defineJob, keyGroupFor, operatorIndexForKeyGroup } from '../../src/index.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';
import type { ChannelStateHandle, TaskRestoreState } from '../../src/checkpoint/state-handles.ts';
import { channelStateKey, toChannelStateKey, type ChannelStateKey } from '../../src/checkpoint/channel-state-key.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectLocal } from '../../src/network/local-channel.ts';
import { systemClock } from '../../src/clock/clock.ts';
import type { Barrier, ChannelItem } from '../../src/network/stream-event.ts';
import type { JobVertex } from '../../src/graph/job-graph.ts';
import { InputGate } from '../../src/worker/input-gate.ts';
import { RecordWriter } from '../../src/worker/record-writer.ts';
import { Task } from '../../src/worker/task.ts';

interface WordCount {
  word: string;
  count: number;
}

const job = defineJob((env) => {
  env.setParallelism(2);
  env
    .fromSource<string>({ boundedness: 'bounded', createSplits: () => [], createReader: () => { throw new Error('unused'); } }, { uid: 'source' })
    .map((word: string): WordCount => ({ word, count: 1 }), { name: 'Map', chaining: false })
    .keyBy((r) => r.word)
    .sum('count', { name: 'Sum', uid: 'sum' })
    .rebalance()
    .sinkTo(new CollectSink<WordCount>('unaligned-unused'), { uid: 'sink' });
});

const unalignedBarrier = (checkpointId: number): Barrier => ({
  kind: 'barrier',
  checkpointId,
  timestamp: Date.now(),
  options: { type: 'checkpoint', unaligned: true, alignedTimeout: 0, targetDir: '/nonexistent' },
});
const records = (...words: string[]): ChannelItem => ({ kind: 'records', records: words.map((word) => ({ word, count: 1 })), bytes: 0 });

interface Harness {
  task: Task;
  inputs: InputChannel[];
  downstream: InputChannel;
  written: Array<{ inputs: Array<readonly [string, unknown[]]>; outputs: Array<readonly [string, unknown[]]> }>;
  acks: number;
  snapshots: number;
  run(): Promise<void>;
}

async function sumTask(sum: JobVertex, subtask: number, credits: number, restore: TaskRestoreState | null, stored: Map<string, unknown[]>): Promise<Harness> {
  const inputs = [new InputChannel(0, 'input 0 (from Map 1)', channelStateKey(sum.inputs[0]!.id, 0)), new InputChannel(1, 'input 1 (from Map 2)', channelStateKey(sum.inputs[0]!.id, 1))];
  const downstream = new InputChannel(0, 'sink');
  const writer = new RecordWriter([connectLocal(downstream, { credits, batchSize: 1, clock: systemClock, maxBacklog: 1000 })], () => 0);
  const h: Harness = {
    inputs,
    downstream,
    written: [],
    acks: 0,
    snapshots: 0,
    task: undefined as unknown as Task,
    async run() {
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 100 && h.task.step() === 'busy'; i++);
        await new Promise((r) => setImmediate(r));
      }
    },
  };
  h.task = new Task({
    jobId: 'b'.repeat(32),
    jobName: 'test job',
    attempt: 0,
    vertex: sum,
    subtask,
    gate: new InputGate(inputs),
    writers: new Map([[sum.outputs[0]!.id, writer]]),
    splits: [],
    restore,
    barrierMode: 'aligned',
    report: (m) => {
      if (m.type === 'acknowledgeCheckpoint') h.acks++;
    },
    wake: () => {},
    storage: {
      writeSnapshot: async () => {
        h.snapshots++;
        return { operators: [], inputChannels: {}, outputChannels: {} };
      },
      writeChannelState: async (_target, _task, channels) => {
        h.written.push({ inputs: [...channels.inputs], outputs: [...channels.outputs] });
        return { inputChannels: {}, outputChannels: {} };
      },
      readChannelState: (handle: ChannelStateHandle) => stored.get(handle.file) ?? [],
      restoreKeyed: async () => {},
    },
    log: silentLogger,
  });
  await h.task.initialize();
  return h;
}

function drain(channel: InputChannel): unknown[] {
  const out: unknown[] = [];
  for (let item = channel.poll(); item; item = channel.poll()) {
    if (item.kind === 'records') out.push(...item.records.map((r) => `${(r as WordCount).word}=${(r as WordCount).count}`));
    else if (item.kind === 'barrier') out.push(`barrier-${item.checkpointId}${item.options.unaligned ? ' (unaligned)' : ''}`);
  }
  return out;
}

test('unaligned: the snapshot is taken at the first barrier; queued and pre-barrier records become channel state and come back first', async () => {
  const { jobGraph } = await job.plan([]);
  const sum = jobGraph.vertices.find((v) => v.name.startsWith('Sum'))!;
  const owner = (w: string) => operatorIndexForKeyGroup(keyGroupFor(w, 128), 2, 128);
  const subtask = owner('hello');
  const world = ['world', 'flink', 'weir', 'barrier', 'state', 'stream'].find((w) => owner(w) === subtask)!;
  // No credit downstream: everything Sum emits waits in its output channel, as under backpressure.
  const h = await sumTask(sum, subtask, 0, null, new Map());
  const [fromMap1, fromMap2] = h.inputs as [InputChannel, InputChannel];

  fromMap1.deliver(records('hello', world));
  fromMap2.deliver(records('hello'));
  await h.run();
  // Map2 queued another (hello), then its barrier overtook it.
  fromMap2.deliver(records('hello'));
  fromMap2.deliverPriority(unalignedBarrier(1));
  await h.run();
  assert.equal(h.snapshots, 1, 'the operator state is snapshotted at the first barrier');
  assert.equal(h.written.length, 0, 'the channel state is written only once every barrier is in');
  const downstream = drain(h.downstream);
  assert.deepEqual(downstream, ['barrier-1 (unaligned)'], 'the barrier overtook the output waiting for credit');
  // Map1 sends a record before its own barrier: it is in flight for checkpoint 1.
  fromMap1.deliver(records(world));
  fromMap1.deliverPriority(unalignedBarrier(1));
  await h.run();
  assert.equal(h.written.length, 1);
  assert.equal(h.acks, 1, 'the checkpoint is acknowledged once the in-flight data is persisted');
  const { inputs, outputs } = h.written[0]!;
  const asWords = (rs: unknown[]) => rs.map((r) => `${(r as WordCount).word}=${(r as WordCount).count}`);
  assert.deepEqual(Object.fromEntries(inputs.map(([k, rs]) => [k, asWords(rs)])), {
    [fromMap1.key]: [`${world}=1`],
    [fromMap2.key]: ['hello=1'],
  });
  assert.deepEqual(asWords(outputs[0]![1]), ['hello=1', `${world}=1`, 'hello=2'], 'the output waiting at snapshot time is persisted');

  // Restore from that channel state into a fresh Sum subtask (its keyed state is empty here), with credit.
  const stored = new Map<string, unknown[]>();
  const handle = (name: string, rs: unknown[]): { key: ChannelStateKey; handle: ChannelStateHandle } => {
    stored.set(name, rs);
    return { key: toChannelStateKey(name.split('|')[1]!), handle: { file: name, offset: 0, length: 1, records: rs.length, crc32: 0 } };
  };
  const restore: TaskRestoreState = {
    checkpointId: 1,
    directory: '/nonexistent',
    operators: {},
    channels: {
      rescaled: false,
      inputs: inputs.map(([k, rs]) => handle(`in|${k}`, rs)),
      outputs: outputs.map(([k, rs]) => handle(`out|${k}`, rs)),
    },
  };
  const r = await sumTask(sum, subtask, 100, restore, stored);
  r.inputs[0]!.deliver(records(world));
  await r.run();
  const replayed = drain(r.downstream);
  assert.deepEqual(replayed.slice(0, 3), ['hello=1', `${world}=1`, 'hello=2'], 'persisted output goes out before anything new');
  assert.deepEqual(replayed.slice(3, 5).sort(), ['hello=1', `${world}=1`].sort(), 'persisted input is processed next');
  assert.deepEqual(replayed.slice(5), [`${world}=2`], 'then the new input');
});

const alignedBarrier = (checkpointId: number, alignedTimeout: number, timestamp = Date.now()): Barrier => ({
  kind: 'barrier',
  checkpointId,
  timestamp,
  options: { type: 'checkpoint', unaligned: false, alignedTimeout, targetDir: '/nonexistent' },
});

async function alignedTimeoutRun(timeoutMs: number, lateMs: number) {
  const { jobGraph } = await job.plan([]);
  const sum = jobGraph.vertices.find((v) => v.name.startsWith('Sum'))!;
  const owner = (w: string) => operatorIndexForKeyGroup(keyGroupFor(w, 128), 2, 128);
  const subtask = owner('hello');
  const h = await sumTask(sum, subtask, 100, null, new Map());
  const [fromMap1, fromMap2] = h.inputs as [InputChannel, InputChannel];
  const triggered = Date.now();
  // Map2's barrier arrives in order, then a record for checkpoint 2 behind it.
  fromMap2.deliver(alignedBarrier(1, timeoutMs, triggered));
  fromMap2.deliver(records('hello'));
  await h.run();
  // Map1 is slow: its record for checkpoint 1 and its barrier come `lateMs` later (the timeout is about time passing).
  await new Promise((resolve) => setTimeout(resolve, lateMs));
  await h.run();
  const switchedBeforeLastBarrier = h.snapshots;
  fromMap1.deliver(records('hello'));
  fromMap1.deliver(alignedBarrier(1, timeoutMs, triggered));
  await h.run();
  return { h, switchedBeforeLastBarrier, fromMap1, fromMap2 };
}

test('aligned timeout: an alignment that waits longer than the timeout completes as unaligned', async () => {
  const { h, switchedBeforeLastBarrier, fromMap1 } = await alignedTimeoutRun(30, 120);
  assert.equal(switchedBeforeLastBarrier, 1, 'the snapshot was taken when the timeout passed, before the last barrier');
  assert.equal(h.written.length, 1, 'channel state was written: the checkpoint is unaligned');
  const input = Object.fromEntries(h.written[0]!.inputs.map(([k, rs]) => [k, rs.map((r) => (r as WordCount).word)]));
  assert.deepEqual(input[fromMap1.key], ['hello'], "Map1's record before its barrier is in the channel state");
  assert.equal(h.acks, 1);
});

test('aligned timeout: an alignment within the timeout stays aligned', async () => {
  const { h, switchedBeforeLastBarrier } = await alignedTimeoutRun(5_000, 20);
  assert.equal(switchedBeforeLastBarrier, 0, 'no snapshot until the last barrier');
  assert.equal(h.snapshots, 1);
  assert.equal(h.written.length, 0, 'no channel state: the checkpoint stayed aligned');
  assert.equal(h.acks, 1);
});
