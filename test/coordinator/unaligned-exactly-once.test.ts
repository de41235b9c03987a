// Unaligned checkpoints end to end: a running word count into the transactional FileSink behind a
// sink far slower than the source, so the channels are full whenever a checkpoint is taken and
// its barriers overtake queued records, which are persisted as channel state and replayed first
// on restore. With injected failures the committed output must still be exactly `w\t1` .. `w\tn`
// for every word; restores must really have used checkpoints with persisted in-flight data; an
// unaligned checkpoint restores at another parallelism over a keyed connection and is refused
// with a RestoreError over forward and broadcast connections; the aligned-checkpoint timeout
// decides between aligned and unaligned checkpoints.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, createLogger, type JobListener, type JobMaster, type JobResult } from '../../src/index.ts';
import type { CheckpointStats } from '../../src/coordinator/checkpoint-stats.ts';
import { readMetadata, type CheckpointMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import {
  diffSortedLines,
  expectedRunningCounts,
  JobEvents,
  makeTempDir,
  readCommittedLines,
  removeDir,
  writeWordsFile,
} from '../fixtures/recovery-helpers.ts';
import { stateBackendConfig } from '../fixtures/state-backends.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'wordcount-unaligned.ts');

/** Small buffers and few credits: the channels fill up with a few hundred records. */
const NETWORK = { 'taskmanager.network.buffer-records': 32, 'taskmanager.network.credits-per-channel': 4 };

interface Run {
  readonly master: JobMaster;
  readonly events: JobEvents;
  readonly result: Promise<JobResult>;
  /** For each restore: the restored checkpoint's statistics as this master recorded them (if it did). */
  readonly restoredStats: Array<{ checkpointId: number; stats: CheckpointStats | undefined }>;
}

interface RunOptions {
  readonly dir: string;
  readonly input: string;
  readonly parallelism: number;
  readonly taskManagers?: number;
  readonly sinkRate?: number;
  readonly linesPerSecond?: number;
  readonly checkpointInterval?: number;
  readonly splitEdge?: 'chained' | 'forward' | 'broadcast';
  readonly minSplitBytes?: number;
  readonly config?: Record<string, unknown>;
  readonly faults?: { failures: number; seed: number; minRecords: number; maxRecords: number };
  readonly restoreFrom?: string;
  /** Output directory (the dir's `output` by default): runs that continue one another share it. */
  readonly output?: string;
  readonly onCompleted?: (master: JobMaster, checkpointId: number) => void;
}

async function start(o: RunOptions): Promise<Run> {
  const events = new JobEvents();
  const restoredStats: Run['restoredStats'] = [];
  let master!: JobMaster;
  const listener: JobListener = {
    ...events.listener,
    onRestored: (info) => {
      // The stats of the checkpoint the restart chose, read while the master restores it.
      restoredStats.push({ checkpointId: info.checkpointId, stats: master.checkpoints.stats.get(info.checkpointId) });
      events.listener.onRestored!(info);
    },
    onCheckpointCompleted: (c) => {
      events.listener.onCheckpointCompleted!(c);
      o.onCompleted?.(master, c.id);
    },
  };
  master = await createJobMaster({
    job: JOB,
    args: [
      '--input',
      o.input,
      '--output',
      o.output ?? join(o.dir, 'output'),
      '--sink-rate',
      String(o.sinkRate ?? 0),
      '--lines-per-second',
      String(o.linesPerSecond ?? 0),
      '--checkpoint-interval',
      String(o.checkpointInterval ?? 100),
      '--split-edge',
      o.splitEdge ?? 'chained',
      '--min-split-bytes',
      String(o.minSplitBytes ?? 4096),
    ],
    config: {
      'parallelism.default': o.parallelism,
      'execution.checkpointing.dir': join(o.dir, 'checkpoints'),
      'execution.checkpointing.unaligned.enabled': true,
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 20,
      'restart-strategy.fixed-delay.delay': '20 ms',
      ...NETWORK,
      ...o.config,
    },
    taskManagers: o.taskManagers ?? 0,
    ...(o.faults ? { faults: o.faults } : {}),
    ...(o.restoreFrom ? { restoreFrom: o.restoreFrom } : {}),
    listener,
    log: createLogger({ level: 'error', write: () => {} }),
  });
  return { master, events, restoredStats, result: master.run() };
}

function completedStats(master: JobMaster): CheckpointStats[] {
  return master.checkpoints.stats.history().filter((s) => s.status === 'COMPLETED' && !s.isSavepoint);
}

function describeStats(stats: readonly CheckpointStats[]): string {
  return stats.map((s) => `${s.id}:${s.status}${s.unaligned ? ' unaligned' : ''} persisted=${s.persistedData} ${Math.round(s.endToEndDuration)} ms`).join(', ');
}

function assertExactlyOnce(output: string, expected: readonly string[]): void {
  const lines = readCommittedLines(output);
  const diff = diffSortedLines(lines, expected);
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
  const hidden = readdirSync(output).filter((n) => n.startsWith('.'));
  assert.deepEqual(hidden, [], 'hidden in-progress or pending files were left behind');
}

/** Records of channel state per edge id in a checkpoint's metadata, on the input and the output side. */
function channelStateByEdge(metadata: CheckpointMetadata): Map<number, { input: number; output: number }> {
  const byEdge = new Map<number, { input: number; output: number }>();
  const add = (entries: Record<string, { records: number }> | undefined, side: 'input' | 'output') => {
    for (const [key, h] of Object.entries(entries ?? {})) {
      const edge = Number(key.split(':')[0]);
      const counts = byEdge.get(edge) ?? { input: 0, output: 0 };
      counts[side] += h.records;
      byEdge.set(edge, counts);
    }
  };
  for (const op of metadata.operators) {
    for (const s of op.subtasks) {
      add(s.inputChannels, 'input');
      add(s.outputChannels, 'output');
    }
  }
  return byEdge;
}

let root: string;
let input: string;
let counts: Map<string, number>;
let expected: string[];

before(() => {
  root = makeTempDir('unaligned');
  input = join(root, 'words.txt');
  counts = writeWordsFile(input, { seed: 20240917, bytes: 60_000 }).counts;
  expected = expectedRunningCounts(counts);
});
after(() => removeDir(root));

describe('exactly-once with unaligned checkpoints under backpressure', () => {
  const cases = [
    { parallelism: 2, taskManagers: 0, seed: 31 },
    { parallelism: 3, taskManagers: 0, seed: 32 },
    { parallelism: 2, taskManagers: 2, seed: 33 },
    { parallelism: 3, taskManagers: 3, seed: 34 },
    { parallelism: 2, taskManagers: 2, seed: 35, backend: 'lmdb' },
  ] as const;
  for (const c of cases) {
    const where = c.taskManagers === 0 ? 'in this thread' : `on ${c.taskManagers} worker TaskManagers`;
    const backend = 'backend' in c ? c.backend : 'heap';
    test(`parallelism ${c.parallelism} ${where}, ${backend} state backend: 5 failures, restores with in-flight data, exact output`, async () => {
      const dir = join(root, `eo-p${c.parallelism}-tm${c.taskManagers}-${backend}`);
      const t0 = Date.now();
      const run = await start({
        dir,
        input,
        parallelism: c.parallelism,
        taskManagers: c.taskManagers,
        sinkRate: 2500,
        faults: { failures: 5, seed: c.seed, minRecords: 300, maxRecords: 2000 },
        config: stateBackendConfig(backend),
      });
      const result = await run.result;
      const stats = completedStats(run.master);
      if (process.env.WEIR_TEST_DEBUG) console.log(Date.now() - t0, 'ms', run.events.describe(), describeStats(stats), run.restoredStats.map((r) => `${r.checkpointId}:${r.stats?.persistedData}`));
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}; ${run.events.describe()}`);
      assert.equal(result.injectedFailures, 5);
      assert.equal(result.restarts, 5, `unexpected restarts: ${run.events.describe()}`);

      // Checkpoints were unaligned and really persisted in-flight records.
      const withData = stats.filter((s) => s.unaligned && s.persistedData > 0);
      assert.ok(withData.length >= 3, `too few unaligned checkpoints with persisted in-flight data: ${describeStats(stats)}`);
      assert.ok(stats.every((s) => s.unaligned), `an aligned checkpoint completed although the timeout is 0: ${describeStats(stats)}`);
      // At least one restart restored such a checkpoint, so in-flight data was replayed.
      const replayed = run.restoredStats.filter((r) => r.stats?.unaligned && r.stats.persistedData > 0);
      assert.ok(
        replayed.length >= 1,
        `no restore used a checkpoint with persisted in-flight data: ${JSON.stringify(run.restoredStats.map((r) => [r.checkpointId, r.stats?.persistedData]))}`,
      );

      assertExactlyOnce(join(dir, 'output'), expected);
    });
  }
});

/**
 * Runs the job until a checkpoint that satisfies `wanted` completes, then cancels it with
 * RETAIN_ON_CANCELLATION: that checkpoint is the one retained.
 */
async function retainCheckpoint(
  o: RunOptions,
  wanted: (stats: CheckpointStats, master: JobMaster) => boolean,
): Promise<{ id: number; directory: string; stats: CheckpointStats; metadata: CheckpointMetadata }> {
  let chosen: CheckpointStats | undefined;
  const run = await start({
    ...o,
    config: { ...o.config, 'execution.checkpointing.externalized-checkpoint-retention': 'RETAIN_ON_CANCELLATION' },
    onCompleted: (master, id) => {
      const stats = master.checkpoints.stats.get(id);
      if (chosen || !stats || !wanted(stats, master)) return;
      chosen = stats;
      // Synchronously, inside the completion: no later checkpoint can complete after this one.
      void master.cancel();
    },
  });
  const timer = setTimeout(() => void run.master.cancel(), 30_000);
  const result = await run.result.finally(() => clearTimeout(timer));
  assert.ok(chosen, `no checkpoint as wanted completed before the job ended (${result.status}): ${describeStats(run.master.checkpoints.stats.history())}`);
  assert.equal(result.status, 'CANCELED', `the first run ended ${result.status}: ${result.error?.message}`);
  assert.ok(result.latestCheckpoint, 'the cancelled job retained no checkpoint');
  const { metadata, directory } = await readMetadata(result.latestCheckpoint);
  assert.equal(metadata.checkpointId, chosen.id, 'the retained checkpoint is not the one the job was cancelled at');
  assert.equal(metadata.unaligned, true);
  return { id: chosen.id, directory, stats: chosen, metadata };
}

function edgeId(metadata: CheckpointMetadata, partitioner: string): number {
  const edge = metadata.edges?.find((e) => e.partitioner === partitioner);
  assert.ok(edge, `the checkpoint records no ${partitioner} connection: ${JSON.stringify(metadata.edges)}`);
  return edge.id;
}

describe('restoring an unaligned checkpoint at another parallelism', () => {
  for (const [from, to, tms, backend] of [
    [2, 3, 0, 'heap'],
    [3, 2, 0, 'heap'],
    [2, 3, 3, 'heap'],
    [3, 2, 0, 'lmdb'],
  ] as const) {
    const where = tms === 0 ? 'in this thread' : 'on worker TaskManagers (shared-memory channels)';
    const config = stateBackendConfig(backend);
    test(`keyed connection: in-flight input and output taken at p=${from} are redistributed at p=${to}, output exact (${where}, ${backend} state backend)`, async () => {
      const dir = join(root, `rescale-keyed-${from}-${to}-tm${tms}-${backend}`);
      const output = join(dir, 'output');
      const taskManagers = tms === 0 ? 0 : from;
      const retained = await retainCheckpoint({ dir, input, output, parallelism: from, sinkRate: 2500, taskManagers, config }, (s, master) => {
        if (s.id < 3 || !s.unaligned) return false;
        // Both sides: records the Sum subtasks had queued, and records the sources could not send yet.
        const source = master.graph.vertices.find((v) => v.isSource)!.id;
        const persisted = s.subtasks.filter((t) => t.persistedBytes > 0);
        return persisted.some((t) => t.vertexId === source) && persisted.some((t) => t.vertexId !== source);
      });
      const onKeyed = channelStateByEdge(retained.metadata).get(edgeId(retained.metadata, 'hash'));
      assert.ok(onKeyed && onKeyed.input > 0 && onKeyed.output > 0, `the retained checkpoint lacks in-flight records on the keyed connection: ${JSON.stringify(onKeyed)}`);
      assert.ok(readCommittedLines(output).length < expected.length, 'everything was committed before the rescale: make the input larger or the sink slower');

      const resumed = await start({ dir, input, output, parallelism: to, sinkRate: 0, restoreFrom: retained.directory, taskManagers: tms === 0 ? 0 : to, config });
      const result = await resumed.result;
      assert.equal(result.status, 'FINISHED', `the rescaled run did not finish: ${result.error?.message}; ${resumed.events.describe()}`);
      assert.deepEqual(resumed.events.restored.map((r) => r.checkpointId), [retained.id]);
      assertExactlyOnce(output, expected);
    });
  }

  for (const kind of ['forward', 'broadcast'] as const) {
    test(`${kind} connection with in-flight data: refused at p=3 with a RestoreError, restored at p=2 with exact output`, async () => {
      const dir = join(root, `rescale-${kind}`);
      const output = join(dir, 'output');
      // Broadcast: every line goes to both Split subtasks, so every word is counted twice.
      const expectedHere = kind === 'broadcast' ? expectedRunningCounts(new Map([...counts].map(([w, n]) => [w, 2 * n]))) : expected;
      const common = { dir, input, output, splitEdge: kind, checkpointInterval: 50 } as const;
      const retained = await retainCheckpoint({ ...common, parallelism: 2, sinkRate: 2500 }, (s, master) => {
        if (!s.unaligned || s.id < 2) return false;
        // The source's only output is the forward/broadcast connection: it persisted records there.
        const source = master.graph.vertices.find((v) => v.isSource)!;
        return s.subtasks.some((t) => t.vertexId === source.id && t.persistedBytes > 0);
      });
      const onEdge = channelStateByEdge(retained.metadata).get(edgeId(retained.metadata, kind));
      assert.ok(onEdge && onEdge.input + onEdge.output > 0, `the retained checkpoint has no in-flight records on the ${kind} connection`);

      const refused = await start({ ...common, parallelism: 3, restoreFrom: retained.directory });
      const failed = await refused.result;
      assert.equal(failed.status, 'FAILED', `restoring at p=3 did not fail: ${refused.events.describe()}`);
      assert.equal(failed.error?.name, 'RestoreError', `not a RestoreError: ${failed.error?.stack}`);
      assert.match(failed.error!.message, new RegExp(`in-flight data on a ${kind} connection`));
      assert.match(failed.error!.message, /another parallelism/);
      assert.equal(failed.restarts, 0, 'a refused restore must not be retried');

      // The refused attempt changed nothing: at the old parallelism the same checkpoint restores.
      const resumed = await start({ ...common, parallelism: 2, sinkRate: 0, restoreFrom: retained.directory });
      const result = await resumed.result;
      assert.equal(result.status, 'FINISHED', `the run at p=2 did not finish: ${result.error?.message}; ${resumed.events.describe()}`);
      assert.deepEqual(resumed.events.restored.map((r) => r.checkpointId), [retained.id]);
      assertExactlyOnce(output, expectedHere);
    });
  }
});

describe('aligned-checkpoint timeout', () => {
  test('10 s timeout, no backpressure: unaligned enabled, checkpoints complete aligned', async () => {
    const dir = join(root, 'timeout-high');
    const run = await start({
      dir,
      input,
      parallelism: 2,
      sinkRate: 0,
      linesPerSecond: 8000,
      checkpointInterval: 50,
      config: { 'execution.checkpointing.aligned-checkpoint-timeout': '10 s' },
    });
    const result = await run.result;
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
    const stats = completedStats(run.master);
    assert.ok(stats.length >= 3, `too few checkpoints completed: ${describeStats(stats)}`);
    assert.ok(stats.every((s) => !s.unaligned && s.persistedData === 0), `a checkpoint went unaligned within the timeout: ${describeStats(stats)}`);
    assert.ok(stats.every((s) => s.subtasks.every((t) => !t.unaligned)), 'a subtask acknowledged an unaligned snapshot');
    assertExactlyOnce(join(dir, 'output'), expected);
  });

  test('1 ms timeout, barriers delayed behind full channels on every input: unaligned from the first barrier', async () => {
    const dir = join(root, 'timeout-start-delay');
    // Both source subtasks fill their channels alike, so both barriers reach a Sum subtask after
    // the same queued data, in one step: the alignment itself takes no time, but the barriers
    // arrive long after the timeout (counted from the trigger, Flink's checkpoint start delay).
    const run = await start({
      dir,
      input,
      parallelism: 2,
      sinkRate: 2500,
      checkpointInterval: 50,
      config: { 'execution.checkpointing.aligned-checkpoint-timeout': '1 ms', 'taskmanager.network.credits-per-channel': 16 },
    });
    const result = await run.result;
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
    const stats = completedStats(run.master);
    // The final checkpoint comes after the end of input, when nothing delays its barriers.
    const beforeEnd = stats.slice(0, -1);
    assert.ok(beforeEnd.length >= 3, `too few checkpoints completed: ${describeStats(stats)}`);
    assert.ok(beforeEnd.every((s) => s.unaligned), `a checkpoint whose barriers came after the timeout stayed aligned: ${describeStats(stats)}`);
    assertExactlyOnce(join(dir, 'output'), expected);
  });

  test('100 ms timeout, one channel behind a slow sink: the sender converts its barrier and checkpoints complete unaligned within the timeout', async () => {
    const dir = join(root, 'timeout-sender');
    // Parallelism 1: Sum has one input channel, so it never waits to align and its own timeout
    // never runs; only the source's output channel, full behind the slow sink, holds a barrier
    // back. Draining what it holds takes over a second at the sink's pace: an aligned barrier
    // would take that long, the converted one overtakes it.
    const small = join(dir, 'words.txt');
    mkdirSync(dir, { recursive: true });
    const few = writeWordsFile(small, { seed: 7, bytes: 30_000 }).counts;
    const timeout = 100;
    const sinkRate = 1500;
    const network = { 'taskmanager.network.buffer-records': 64, 'taskmanager.network.credits-per-channel': 32 };
    const run = await start({
      dir,
      input: small,
      parallelism: 1,
      sinkRate,
      checkpointInterval: 300,
      config: { 'execution.checkpointing.aligned-checkpoint-timeout': `${timeout} ms`, ...network },
    });
    const result = await run.result;
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
    const stats = completedStats(run.master);
    const drainMs = ((network['taskmanager.network.buffer-records'] * network['taskmanager.network.credits-per-channel']) / sinkRate) * 1000;
    const converted = stats.filter((s) => s.unaligned && s.persistedData > 0);
    if (process.env.WEIR_TEST_DEBUG) console.log(describeStats(stats));
    assert.ok(converted.length >= 2, `too few checkpoints were converted at the sender: ${describeStats(stats)}`);
    // What conversion buys: the barrier does not wait for the channel to drain. The bound is the
    // drain time itself, not the timeout plus a margin, which a loaded machine overran (1079 ms).
    for (const s of converted) {
      assert.ok(s.endToEndDuration < drainMs, `checkpoint ${s.id} took ${s.endToEndDuration} ms with a ${timeout} ms aligned timeout (draining the channel takes ~${drainMs} ms)`);
    }
    assertExactlyOnce(join(dir, 'output'), expectedRunningCounts(few));
  });

  test('1 ms timeout under backpressure: checkpoints start aligned and complete unaligned', async () => {
    const dir = join(root, 'timeout-low');
    // One input split: source subtask 1 reads it all into full channels, source subtask 2 is idle
    // and its barriers reach the Sum subtasks at once. An aligned checkpoint would wait for the
    // full channels to drain through the slow sink; past the timeout it goes unaligned and
    // persists what they hold.
    const run = await start({
      dir,
      input,
      parallelism: 2,
      sinkRate: 2500,
      checkpointInterval: 50,
      minSplitBytes: 1 << 20,
      config: { 'execution.checkpointing.aligned-checkpoint-timeout': '1 ms', 'taskmanager.network.credits-per-channel': 16 },
    });
    const result = await run.result;
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
    const stats = completedStats(run.master);
    if (process.env.WEIR_TEST_DEBUG) console.log(describeStats(stats));
    const unaligned = stats.filter((s) => s.unaligned);
    assert.ok(unaligned.length >= 3, `too few checkpoints switched to unaligned: ${describeStats(stats)}`);
    assert.ok(unaligned.filter((s) => s.persistedData > 0).length >= 3, `too few switched checkpoints persisted in-flight data: ${describeStats(stats)}`);
    assertExactlyOnce(join(dir, 'output'), expected);
  });
});
