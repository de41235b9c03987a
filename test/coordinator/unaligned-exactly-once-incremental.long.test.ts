// The unaligned-checkpoint suite (unaligned-exactly-once.test.ts) with incremental checkpoints, on
// the lmdb backend and on the heap backend's delta mode: the word count behind a sink far slower
// than the source, so barriers overtake queued records that are persisted as channel state. After
// 5 injected failures the committed output is exactly `w\t1` .. `w\tn` for every word, restores
// replayed in-flight data, and the keyed state went into shared files with deltas; an unaligned
// incremental checkpoint restored at another parallelism (keyed connection, NO_CLAIM) finishes
// exact and starts a chain of its own; a 1 ms aligned timeout switches to unaligned and stays exact.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, createLogger, type JobListener, type JobMaster, type JobResult } from '../../src/index.ts';
import type { CheckpointStats } from '../../src/coordinator/checkpoint-stats.ts';
import type { CompletedCheckpoint } from '../../src/coordinator/completed-checkpoint.ts';
import { diffSortedLines, expectedRunningCounts, JobEvents, makeTempDir, readCommittedLines, removeDir, writeWordsFile } from '../fixtures/recovery-helpers.ts';
import { assertFirstCheckpointStartsChain, assertIncrementalRun, CheckpointLog, hasDeltas, incrementalConfig } from '../fixtures/incremental-backends.ts';
import type { StateBackendType } from '../../src/state/state-backend.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'wordcount-unaligned.ts');
const NETWORK = { 'taskmanager.network.buffer-records': 32, 'taskmanager.network.credits-per-channel': 4 };

interface Run {
  readonly master: JobMaster;
  readonly events: JobEvents;
  readonly log: CheckpointLog;
  readonly result: Promise<JobResult>;
  readonly restoredStats: Array<{ checkpointId: number; stats: CheckpointStats | undefined }>;
}

interface RunOptions {
  readonly dir: string;
  readonly output?: string;
  readonly parallelism: number;
  readonly backend: StateBackendType;
  readonly taskManagers?: number;
  readonly sinkRate?: number;
  readonly checkpointInterval?: number;
  readonly minSplitBytes?: number;
  readonly config?: Record<string, unknown>;
  readonly faults?: { failures: number; seed: number; minRecords: number; maxRecords: number };
  readonly restoreFrom?: string;
  readonly onCompleted?: (master: JobMaster, checkpoint: CompletedCheckpoint) => void;
}

async function start(o: RunOptions): Promise<Run> {
  const events = new JobEvents();
  const log = new CheckpointLog();
  const restoredStats: Run['restoredStats'] = [];
  let master!: JobMaster;
  const listener: JobListener = {
    ...events.listener,
    onRestored: (info) => {
      restoredStats.push({ checkpointId: info.checkpointId, stats: master.checkpoints.stats.get(info.checkpointId) });
      events.listener.onRestored!(info);
    },
    onCheckpointCompleted: (c) => {
      events.listener.onCheckpointCompleted!(c);
      log.record(c);
      o.onCompleted?.(master, c);
    },
  };
  master = await createJobMaster({
    job: JOB,
    args: [
      '--input', input,
      '--output', o.output ?? join(o.dir, 'output'),
      '--sink-rate', String(o.sinkRate ?? 0),
      '--lines-per-second', '0',
      '--checkpoint-interval', String(o.checkpointInterval ?? 100),
      '--split-edge', 'chained',
      '--min-split-bytes', String(o.minSplitBytes ?? 4096),
    ],
    config: {
      'parallelism.default': o.parallelism,
      'execution.checkpointing.dir': join(o.dir, 'checkpoints'),
      'execution.checkpointing.unaligned.enabled': true,
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 20,
      'restart-strategy.fixed-delay.delay': '20 ms',
      ...NETWORK,
      ...incrementalConfig(o.backend),
      ...o.config,
    },
    taskManagers: o.taskManagers ?? 0,
    ...(o.faults ? { faults: o.faults } : {}),
    ...(o.restoreFrom ? { restoreFrom: o.restoreFrom } : {}),
    listener,
    log: createLogger({ level: 'error', write: () => {} }),
  });
  return { master, events, log, restoredStats, result: master.run() };
}

function completedStats(master: JobMaster): CheckpointStats[] {
  return master.checkpoints.stats.history().filter((s) => s.status === 'COMPLETED' && !s.isSavepoint);
}

function describeStats(stats: readonly CheckpointStats[]): string {
  return stats.map((s) => `${s.id}:${s.status}${s.unaligned ? ' unaligned' : ''} persisted=${s.persistedData}`).join(', ');
}

function assertExactlyOnce(output: string): void {
  const diff = diffSortedLines(readCommittedLines(output), expected);
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
  assert.deepEqual(readdirSync(output).filter((n) => n.startsWith('.')), [], 'hidden in-progress or pending files were left behind');
}

// A vocabulary of 4000 words: a checkpoint interval touches a few percent of the keys, so the heap
// backend writes deltas too (it writes a full base when more than a fifth of its entries changed).
let root: string;
let input: string;
let expected: string[];
before(() => {
  root = makeTempDir('unaligned-incremental');
  input = join(root, 'words.txt');
  expected = expectedRunningCounts(writeWordsFile(input, { seed: 20240917, bytes: 60_000, vocabulary: 4000 }).counts);
});
after(() => removeDir(root));

describe('exactly-once with unaligned incremental checkpoints under backpressure', () => {
  for (const c of [
    { backend: 'lmdb', parallelism: 2, taskManagers: 0, seed: 41 },
    { backend: 'lmdb', parallelism: 3, taskManagers: 3, seed: 42 },
    { backend: 'heap', parallelism: 2, taskManagers: 2, seed: 43 },
  ] as const) {
    const where = c.taskManagers === 0 ? 'in this thread' : `on ${c.taskManagers} worker TaskManagers`;
    test(`${c.backend}, incremental: parallelism ${c.parallelism} ${where}, 5 failures, restores with in-flight data, exact output`, async (t) => {
      const dir = join(root, `eo-${c.backend}-p${c.parallelism}-tm${c.taskManagers}`);
      const run = await start({ dir, backend: c.backend, parallelism: c.parallelism, taskManagers: c.taskManagers, sinkRate: 2500, faults: { failures: 5, seed: c.seed, minRecords: 300, maxRecords: 2000 } });
      const result = await run.result;
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}; ${run.events.describe()}`);
      assert.equal(result.injectedFailures, 5);
      assert.equal(result.restarts, 5, `unexpected restarts: ${run.events.describe()}`);
      const stats = completedStats(run.master);
      assert.ok(stats.filter((s) => s.unaligned && s.persistedData > 0).length >= 3, `too few unaligned checkpoints with persisted in-flight data: ${describeStats(stats)}`);
      assert.ok(stats.every((s) => s.unaligned), `an aligned checkpoint completed although the timeout is 0: ${describeStats(stats)}`);
      const replayed = run.restoredStats.filter((r) => r.stats?.unaligned && r.stats.persistedData > 0);
      assert.ok(replayed.length >= 1, `no restore used a checkpoint with persisted in-flight data: ${JSON.stringify(run.restoredStats.map((r) => [r.checkpointId, r.stats?.persistedData]))}`);
      const figures = assertIncrementalRun(run.log, 'counts', true);
      t.diagnostic(`${figures.checkpoints} checkpoints, ${figures.withDeltas} with deltas, ${run.events.restored.length} restores`);
      assertExactlyOnce(join(dir, 'output'));
    });
  }
});

describe('restoring an unaligned incremental checkpoint at another parallelism (keyed connection, NO_CLAIM)', () => {
  for (const [from, to, tms, backend] of [
    [3, 2, 0, 'lmdb'],
    [2, 3, 3, 'lmdb'],
    [3, 2, 0, 'heap'],
  ] as const) {
    const where = tms === 0 ? 'in this thread' : 'on worker TaskManagers';
    test(`${backend}, incremental: in-flight input and output taken at p=${from} are redistributed at p=${to}, output exact, first checkpoint a new chain (${where})`, async () => {
      const dir = join(root, `rescale-${backend}-${from}-${to}-tm${tms}`);
      const output = join(dir, 'output');
      let chosen: number | undefined;
      // Cancelled inside the completion of an unaligned checkpoint with in-flight data on both sides
      // a chain with deltas behind it: that checkpoint is the one retained.
      // The sink at 1000 records/s: a loaded machine must still fill the channels in front of it
      // (in-flight data on both sides), and few keys change per interval (the heap writes deltas).
      const first = await start({
        dir, output, backend, parallelism: from, sinkRate: 1000, taskManagers: tms === 0 ? 0 : from,
        config: { 'execution.checkpointing.externalized-checkpoint-retention': 'RETAIN_ON_CANCELLATION' },
        onCompleted: (master, c) => {
          const s = master.checkpoints.stats.get(c.id);
          if (chosen !== undefined || c.type !== 'checkpoint' || !s || s.id < 3 || !s.unaligned) return;
          const source = master.graph.vertices.find((v) => v.isSource)!.id;
          const persisted = s.subtasks.filter((x) => x.persistedBytes > 0);
          if (!persisted.some((x) => x.vertexId === source) || !persisted.some((x) => x.vertexId !== source)) return;
          if (!hasDeltas(c, 'counts')) return;
          chosen = c.id;
          // Synchronously, inside the completion: no later checkpoint can complete after this one.
          void master.cancel();
        },
      });
      const timer = setTimeout(() => void first.master.cancel(), 60_000);
      const cancelled = await first.result.finally(() => clearTimeout(timer));
      assert.ok(chosen !== undefined, `no unaligned checkpoint with in-flight data and deltas completed (${cancelled.status}): ${describeStats(completedStats(first.master))}`);
      assert.equal(cancelled.status, 'CANCELED');
      assert.ok(cancelled.latestCheckpoint, 'the cancelled job retained no checkpoint');
      assert.ok(readCommittedLines(output).length < expected.length, 'everything was committed before the rescale: make the input larger or the sink slower');
      assertIncrementalRun(first.log, 'counts', true);

      const resumed = await start({ dir, output, backend, parallelism: to, sinkRate: 5000, restoreFrom: cancelled.latestCheckpoint, taskManagers: tms === 0 ? 0 : to });
      const result = await resumed.result;
      assert.equal(result.status, 'FINISHED', `the rescaled run did not finish: ${result.error?.message}; ${resumed.events.describe()}`);
      assert.deepEqual(resumed.events.restored.map((r) => r.checkpointId), [chosen]);
      assertFirstCheckpointStartsChain(resumed.log, 'counts');
      assertExactlyOnce(output);
    });
  }
});

test('lmdb, incremental: 1 ms aligned timeout under backpressure, checkpoints start aligned and complete unaligned, output exact', async () => {
  const dir = join(root, 'timeout-low');
  const run = await start({
    dir, backend: 'lmdb', parallelism: 2, sinkRate: 2500, checkpointInterval: 50, minSplitBytes: 1 << 20,
    config: { 'execution.checkpointing.aligned-checkpoint-timeout': '1 ms', 'taskmanager.network.credits-per-channel': 16 },
  });
  const result = await run.result;
  assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
  const stats = completedStats(run.master);
  const unaligned = stats.filter((s) => s.unaligned);
  assert.ok(unaligned.length >= 3, `too few checkpoints switched to unaligned: ${describeStats(stats)}`);
  assert.ok(unaligned.filter((s) => s.persistedData > 0).length >= 3, `too few switched checkpoints persisted in-flight data: ${describeStats(stats)}`);
  assertIncrementalRun(run.log, 'counts', true);
  assertExactlyOnce(join(dir, 'output'));
});
