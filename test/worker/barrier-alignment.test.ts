import { test } from 'node:test';
import { silentLogger } from '../../src/log/logger.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineJob, keyGroupFor, operatorIndexForKeyGroup } from '../../src/index.ts';
import type { InputStatus, Source, SourceOutput, SourceReader } from '../../src/api/source.ts';
import { createJobMaster } from '../../src/coordinator/execute-job.ts';
import { readSnapshot } from '../../src/checkpoint/snapshot-reader.ts';
import type { FromTaskExecutor } from '../../src/rpc/control-protocol.ts';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectLocal } from '../../src/network/local-channel.ts';
import { systemClock } from '../../src/clock/clock.ts';
import type { ChannelItem } from '../../src/network/stream-event.ts';
import type { CapturedOperatorState } from '../../src/state/captured-state.ts';
import { InputGate } from '../../src/worker/input-gate.ts';
import { RecordWriter } from '../../src/worker/record-writer.ts';
import { Task } from '../../src/worker/task.ts';
import { CollectSink } from '../../src/connectors/collect/index.ts';

interface WordCount {
  word: string;
  count: number;
}

/** The seed's job: Source -> Map -> keyBy -> Sum, with Map and Sum as their own vertices. */
function seedJob(source: Source<string, unknown>) {
  return defineJob((env) => {
    env.setParallelism(2);
    env
      .fromSource(source, { uid: 'source', name: 'Source' })
      .map((word: string): WordCount => ({ word, count: 1 }), { name: 'Map', chaining: false })
      .keyBy((r) => r.word)
      .sum('count', { name: 'Sum', uid: 'sum' })
      .rebalance()
      .sinkTo(new CollectSink<WordCount>('alignment-unused'), { uid: 'sink' });
  });
}

const barrier = (checkpointId: number): ChannelItem => ({
  kind: 'barrier',
  checkpointId,
  timestamp: Date.now(),
  options: { type: 'checkpoint', unaligned: false, alignedTimeout: 0, targetDir: '/nonexistent' },
});
const records = (...words: string[]): ChannelItem => ({ kind: 'records', records: words.map((word) => ({ word, count: 1 })), bytes: 0 });

/** Values of one keyed state in a captured (copy-on-write) snapshot. */
function capturedValues(captured: readonly CapturedOperatorState[], uid: string): Map<string, unknown> {
  const op = captured.find((c) => c.uid === uid)!;
  const out = new Map<string, unknown>();
  const table = op.keyed!.tables[0]!;
  const groups = op.keyed!.keyGroupRange.end - op.keyed!.keyGroupRange.start + 1;
  for (let kg = 0; kg < groups; kg++) for (const slice of table.snapshot.keyGroupSlices(kg, 100)) for (const [k, v] of slice) out.set(String(k), v);
  return out;
}

test('Sum1 aligns like the seed: records behind an early barrier wait, records before a late barrier count', async () => {
  const { jobGraph } = await seedJob({ boundedness: 'bounded', createSplits: () => [], createReader: () => { throw new Error('unused'); } }).plan([]);
  const sum = jobGraph.vertices.find((v) => v.name.startsWith('Sum'))!;
  assert.equal(sum.inputs.length, 1, 'Sum reads from Map over one keyed edge');
  const fromMap1 = new InputChannel(0, 'input 0 (from Map 1)');
  const fromMap2 = new InputChannel(1, 'input 1 (from Map 2)');
  const gate = new InputGate([fromMap1, fromMap2]);
  // Sum's output: one channel whose receiving end the test reads.
  const downstream = new InputChannel(0, 'sink');
  const writers = new Map([[sum.outputs[0]!.id, new RecordWriter([connectLocal(downstream, { credits: 100, batchSize: 1, clock: systemClock, maxBacklog: 100 })], () => 0)]]);
  // Sum1 is the subtask that owns 'hello'; the second word must belong to it as well.
  const owner = (w: string) => operatorIndexForKeyGroup(keyGroupFor(w, 128), 2, 128);
  const subtask = owner('hello');
  const world = ['world', 'flink', 'weir', 'barrier', 'state', 'stream'].find((w) => owner(w) === subtask)!;
  const reports: FromTaskExecutor[] = [];
  const snapshots: Array<Map<string, unknown>> = [];
  const processedAtSnapshot: unknown[][] = [];
  const task = new Task({
    jobId: 'a'.repeat(32),
    jobName: 'test job',
    attempt: 0,
    vertex: sum,
    subtask,
    gate,
    writers,
    splits: [],
    restore: null,
    barrierMode: 'aligned',
    report: (m) => reports.push(m),
    wake: () => {},
    storage: {
      writeSnapshot: async (_target, captured) => {
        // The async part reads the copy-on-write view; it is released when the write is done.
        snapshots.push(capturedValues(captured, 'sum'));
        processedAtSnapshot.push(drain(downstream));
        return { operators: [], inputChannels: {}, outputChannels: {} };
      },
      writeChannelState: async () => ({ inputChannels: {}, outputChannels: {} }),
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

  // Map1 has sent (hello) and (world); Map2 has sent (hello): Sum has processed them.
  fromMap1.deliver(records('hello', world));
  fromMap2.deliver(records('hello'));
  await run();
  // Map2's barrier arrives first; Map2 then sends another (hello), which belongs to checkpoint 2.
  fromMap2.deliver(barrier(1));
  fromMap2.deliver(records('hello'));
  await run();
  assert.equal(snapshots.length, 0, 'no snapshot before every channel delivered barrier 1');
  assert.ok(gate.isBlocked(1), 'the channel whose barrier arrived is held back');
  // Map1 sends (hello) before its barrier: that one still belongs to checkpoint 1.
  fromMap1.deliver(records('hello'));
  await run();
  fromMap1.deliver(barrier(1));
  await run();

  assert.equal(snapshots.length, 1, 'aligned: the snapshot is taken when the last barrier arrives');
  const state = snapshots[0]!;
  assert.deepEqual(state.get('hello'), { word: 'hello', count: 3 }, 'hello: 2 from Map1 and 1 from Map2 before their barriers');
  assert.deepEqual(state.get(world), { word: world, count: 1 });
  // Everything emitted before the snapshot ends with counts below 4; the held record comes after it.
  const before = processedAtSnapshot[0]!.filter((x) => typeof x === 'object' && x !== null && 'word' in x) as WordCount[];
  assert.ok(before.every((r) => r.count <= 3), 'the held (hello) was not processed before the snapshot');
  const after = [...processedAtSnapshot[0]!, ...drain(downstream)];
  const barrierIndex = after.findIndex((x) => x === 'barrier-1');
  const hello4 = after.findIndex((x) => (x as WordCount).word === 'hello' && (x as WordCount).count === 4);
  assert.ok(barrierIndex >= 0, 'barrier 1 is forwarded downstream');
  assert.ok(hello4 > barrierIndex, 'the held record is processed after the snapshot, and its result follows the barrier');
  assert.equal(
    reports.some((m) => m.type === 'declineCheckpoint'),
    false,
  );
});

/** Turns what reached the downstream channel into records and 'barrier-N' markers. */
function drain(channel: InputChannel): unknown[] {
  const out: unknown[] = [];
  for (let item = channel.poll(); item; item = channel.poll()) {
    if (item.kind === 'records') out.push(...item.records);
    else if (item.kind === 'barrier') out.push(`barrier-${item.checkpointId}`);
  }
  return out;
}

/** A source whose readers emit their words one by one, up to a gate the test opens. */
class GatedWords implements Source<string, { subtask: number; position: number }> {
  readonly boundedness = 'bounded' as const;
  readonly gates: number[];
  readonly positions: number[] = [0, 0];
  readonly #words: string[][];
  readonly #waiters: Array<() => void> = [];
  #wakers: Array<(() => void) | undefined> = [];

  constructor(words: string[][], gates: number[]) {
    this.#words = words;
    this.gates = gates;
  }

  createSplits() {
    return this.#words.map((_, subtask) => ({ subtask, position: 0 }));
  }

  open(subtask: number, to: number): void {
    this.gates[subtask] = to;
    this.#wakers[subtask]?.();
  }

  reached(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  #notify(): void {
    if (this.positions.every((p, i) => p >= Math.min(this.gates[i]!, this.#words[i]!.length))) for (const w of this.#waiters.splice(0)) w();
  }

  createReader(): SourceReader<string, { subtask: number; position: number }> {
    const self = this;
    let split: { subtask: number; position: number } | undefined;
    return {
      addSplits(s) {
        split = { ...s[0]! };
      },
      notifyNoMoreSplits() {},
      pollNext(out: SourceOutput<string>): InputStatus {
        const s = split!;
        const words = self.#words[s.subtask]!;
        if (s.position >= words.length) return 'end';
        if (s.position >= self.gates[s.subtask]!) {
          self.#notify();
          return 'nothing';
        }
        out.collect(words[s.position++]!);
        self.positions[s.subtask] = s.position;
        return 'more';
      },
      isAvailable() {
        return new Promise<void>((resolve) => (self.#wakers[split!.subtask] = resolve));
      },
      snapshotState() {
        return [{ ...split! }];
      },
    };
  }
}

test('checkpoint 1 of the seed holds the source offsets 3 and 1 and the Sum state of exactly those records', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'weir-seed-'));
  try {
    const source = new GatedWords([['hello', 'world', 'hello', 'hello', 'world'], ['hello', 'world', 'hello']], [3, 1]);
    const master = await createJobMaster({
      job: seedJob(source),
      config: { 'execution.checkpointing.dir': dir, 'execution.checkpointing.interval': '1 h', 'execution.checkpointing.num-retained': 5 },
      retainCheckpointsOnFinish: true,
    });
    const done = master.run();
    await source.reached();
    const checkpoint = await master.checkpoints.trigger({ type: 'checkpoint' });
    source.open(0, 5);
    source.open(1, 3);
    const result = await done;
    assert.equal(result.status, 'FINISHED');

    const snap = await readSnapshot(checkpoint.directory);
    const splits = snap.operators.find((o) => o.uid === 'source')!.operator['_source-splits']!.values as Array<{ subtask: number; position: number }>;
    assert.deepEqual(
      splits.map((s) => s.position),
      [3, 1],
      'Source1 read 3 records, Source2 read 1',
    );
    const sum = snap.operators.find((o) => o.uid === 'sum')!;
    const counts = new Map<string, number>();
    const owner = new Map<string, number>();
    for (const st of sum.keyed) {
      for (const [kg, entries] of st.entries) {
        for (const [k, v] of entries) {
          counts.set(String(k), (v as WordCount).count);
          owner.set(String(k), operatorIndexForKeyGroup(kg, 2, 128));
        }
      }
    }
    assert.deepEqual(Object.fromEntries(counts), { hello: 3, world: 1 }, 'all records before the barriers, none after');
    for (const [word, subtask] of owner) assert.equal(subtask, operatorIndexForKeyGroup(keyGroupFor(word, 128), 2, 128), `${word} is in its Sum subtask`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
