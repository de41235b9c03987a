// The event-time suite (exactly-once-windows.test.ts) with incremental checkpoints, on the lmdb
// backend and on the heap backend's delta mode: window contents, merging windows and window timers
// are keyed state in shared files and deltas; across 5 injected failures, across a restore of an
// unaligned checkpoint with in-flight records, and across a stop-with-savepoint at parallelism 2
// (a canonical full savepoint holding open windows and their timers) resumed at parallelism 3,
// the committed window results equal the independent computation, record for record.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { join } from 'node:path';
import { createJobMaster, executeJob, type JobMaster } from '../../src/index.ts';
import { readSnapshot } from '../../src/checkpoint/snapshot-reader.ts';
import { isTerminal } from '../../src/coordinator/job-status.ts';
import { diffSortedLines, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { generatedEvents, sessionSums, slidingSums } from '../fixtures/event-time-expectations.ts';
import { EVENT_TIME_START } from '../fixtures/jobs/event-time-job.ts';
import { assertCanonicalSavepoint, assertFirstCheckpointStartsChain, assertIncrementalRun, CheckpointLog, hasDeltas, incrementalConfig } from '../fixtures/incremental-backends.ts';
import type { JobListener } from '../../src/coordinator/job-listener.ts';
import type { StateBackendType } from '../../src/state/state-backend.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'event-time-job.ts');
const EVENTS = 12_000;
const OOO = 300;
const events = generatedEvents({ seed: 7, events: EVENTS, keys: 20, ooo: OOO, start: EVENT_TIME_START });

let root: string;
const started: JobMaster[] = [];
before(() => {
  root = makeTempDir('exactly-once-windows-incremental');
});
after(async () => {
  for (const m of started) if (!isTerminal(m.status)) await m.cancel();
  removeDir(root);
});

/** The JobEvents listener that also records completed checkpoints in `log`. */
function listening(jobEvents: JobEvents, log: CheckpointLog): JobListener {
  return {
    ...jobEvents.listener,
    onCheckpointCompleted: (c) => {
      jobEvents.listener.onCheckpointCompleted!(c);
      log.record(c);
    },
  };
}

function assertExact(output: string, expected: readonly string[], what: string): void {
  const diff = diffSortedLines(readCommittedLines(output), [...expected]);
  assert.equal(diff, undefined, `${what}: committed window results are not exactly-once: ${diff}`);
}

describe('windows under injected failures, incremental checkpoints', () => {
  const cases: Array<{ kind: string; extra: string[]; expected: () => string[]; parallelism: number; taskManagers: number; seed: number; backend: StateBackendType }> = [
    { kind: 'tumbling', extra: ['--size', '1000'], expected: () => slidingSums(events, 1000, 1000), parallelism: 2, taskManagers: 0, seed: 41, backend: 'lmdb' },
    { kind: 'sliding', extra: ['--size', '1000', '--slide', '250'], expected: () => slidingSums(events, 1000, 250), parallelism: 3, taskManagers: 2, seed: 42, backend: 'lmdb' },
    { kind: 'session', extra: ['--gap', '60'], expected: () => sessionSums(events, 60), parallelism: 2, taskManagers: 2, seed: 43, backend: 'lmdb' },
    { kind: 'sliding', extra: ['--size', '1000', '--slide', '250'], expected: () => slidingSums(events, 1000, 250), parallelism: 2, taskManagers: 0, seed: 44, backend: 'heap' },
    { kind: 'session', extra: ['--gap', '60'], expected: () => sessionSums(events, 60), parallelism: 3, taskManagers: 2, seed: 45, backend: 'heap' },
  ];
  for (const c of cases) {
    test(`${c.backend}, incremental: ${c.kind} windows at parallelism ${c.parallelism}${c.taskManagers ? ` on ${c.taskManagers} worker TaskManagers` : ' in this thread'}, committed results exact after 5 failures`, async (t) => {
      const dir = join(root, `${c.kind}-p${c.parallelism}-${c.backend}`);
      const output = join(dir, 'output');
      const jobEvents = new JobEvents();
      const log = new CheckpointLog();
      const result = await executeJob({
        job: JOB,
        args: ['--kind', c.kind, '--events', String(EVENTS), '--ooo', String(OOO), '--output', output, '--checkpoint-interval', '100', '--rate', '6000', ...c.extra],
        config: {
          'parallelism.default': c.parallelism,
          'pipeline.auto-watermark-interval': '20 ms',
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 20,
          'restart-strategy.fixed-delay.delay': '20 ms',
          ...incrementalConfig(c.backend),
        },
        taskManagers: c.taskManagers,
        faults: { failures: 5, seed: c.seed, minRecords: 300, maxRecords: 2500 },
        listener: listening(jobEvents, log),
      });
      assert.equal(result.status, 'FINISHED', `${result.error?.message}; ${jobEvents.describe()}`);
      assert.equal(result.injectedFailures, 5);
      assert.ok(jobEvents.restored.length >= 2, `some restarts restored a checkpoint (with open windows and timers): ${jobEvents.describe()}`);
      const figures = assertIncrementalRun(log, 'windows', c.backend === 'lmdb');
      t.diagnostic(`${figures.checkpoints} checkpoints, ${figures.withDeltas} with deltas, ${jobEvents.restored.length} restores`);
      assertExact(output, c.expected(), `${c.kind} windows`);
    });
  }
});

for (const backend of ['lmdb', 'heap'] as const) {
  test(`${backend}, incremental: unaligned checkpoints behind a slow sink, a restore replays in-flight records with their timestamps, sliding windows stay exact`, async () => {
    const dir = join(root, `unaligned-${backend}`);
    const output = join(dir, 'output');
    const args = ['--kind', 'sliding', '--size', '1000', '--slide', '250', '--events', String(EVENTS), '--ooo', String(OOO), '--output', output, '--checkpoint-interval', '100'];
    const config = {
      'parallelism.default': 2,
      'pipeline.auto-watermark-interval': '20 ms',
      'execution.checkpointing.dir': join(dir, 'checkpoints'),
      'execution.checkpointing.unaligned.enabled': true,
      'execution.checkpointing.externalized-checkpoint-retention': 'RETAIN_ON_CANCELLATION',
      'taskmanager.network.buffer-records': 32,
      'taskmanager.network.credits-per-channel': 4,
      ...incrementalConfig(backend),
    };
    // Cancelled at the first checkpoint with in-flight records (on lmdb: whose windows' chain has a delta).
    const log = new CheckpointLog();
    let chosen: { id: number; directory: string } | undefined;
    let first!: JobMaster;
    first = await createJobMaster({
      job: JOB,
      args: [...args, '--rate', '4000', '--sink-rate', '50'],
      config,
      listener: {
        onCheckpointCompleted: (c) => {
          log.record(c);
          if (chosen || c.type !== 'checkpoint' || (first.checkpoints.stats.get(c.id)?.persistedData ?? 0) === 0) return;
          if (backend === 'lmdb' && !hasDeltas(c, 'windows')) return;
          chosen = { id: c.id, directory: c.directory };
          void first.cancel();
        },
      },
    });
    started.push(first);
    assert.equal((await first.run()).status, 'CANCELED', 'a checkpoint with in-flight records and deltas completed before the input ended');
    assertIncrementalRun(log, 'windows', backend === 'lmdb');
    const metadata = log.checkpoints.find((c) => c.id === chosen!.id)!.metadata;
    const inFlight = metadata.operators.flatMap((o) => o.subtasks).reduce((n, st) => n + Object.values(st.inputChannels ?? {}).reduce((m, h) => m + h.records, 0) + Object.values(st.outputChannels ?? {}).reduce((m, h) => m + h.records, 0), 0);
    assert.ok(inFlight > 0, 'the restored checkpoint holds in-flight records');

    const events2 = new JobEvents();
    const resumed = await executeJob({ job: JOB, args: [...args, '--rate', '20000'], config, restoreFrom: chosen!.directory, listener: events2.listener });
    assert.equal(resumed.status, 'FINISHED', resumed.error?.message);
    assert.deepEqual(events2.restored.map((r) => r.checkpointId), [chosen!.id]);
    assertExact(output, slidingSums(events, 1000, 250), 'unaligned restore');
  });

  test(`${backend}, incremental: stop with savepoint at parallelism 2 (canonical, open windows and their timers in it), resume at 3 on worker TaskManagers, first checkpoint a new chain: every window result committed once`, async () => {
    const output = join(root, `savepoint-output-${backend}`);
    const savepoints = join(root, `savepoints-${backend}`);
    const args = ['--kind', 'tumbling', '--size', '1000', '--events', String(EVENTS), '--ooo', String(OOO), '--output', output, '--checkpoint-interval', '100'];
    const config = (parallelism: number) => ({ 'parallelism.default': parallelism, 'pipeline.auto-watermark-interval': '20 ms', 'execution.checkpointing.dir': join(root, `savepoint-checkpoints-${backend}`), ...incrementalConfig(backend) });
    const a = new JobEvents();
    const logA = new CheckpointLog();
    const first = await createJobMaster({ job: JOB, args: [...args, '--rate', '3000'], config: config(2), listener: listening(a, logA) });
    started.push(first);
    const firstDone = first.run();
    await first.whenRunning();
    const ready = () => (backend === 'lmdb' ? logA.checkpoints.some((c) => hasDeltas(c, 'windows')) : logA.checkpoints.length >= 3);
    await a.waitFor(backend === 'lmdb' ? 'a checkpoint with deltas' : 'three completed checkpoints', ready, 30_000);
    const sp = await first.stopWithSavepoint(savepoints);
    assert.equal((await firstDone).status, 'FINISHED');
    assertIncrementalRun(logA, 'windows', backend === 'lmdb');
    assertCanonicalSavepoint(sp.metadata, 'windows');

    const snap = await readSnapshot(sp.directory, { uid: 'windows' });
    const windows = snap.operators[0]!;
    assert.equal(windows.parallelism, 2);
    const entries = (name: string) => [...(windows.keyed.find((s) => s.name === name)?.entries.values() ?? [])].flat();
    const open = entries('_window-contents');
    const timers = entries('_timer_state/event_window-timers');
    assert.ok(open.length > 0, `the savepoint holds open windows: ${windows.keyed.map((s) => s.name).join(', ')}`);
    assert.ok(timers.length > 0, 'and their timers');
    const timerSet = new Set(timers.flatMap(([k, v]) => (v as { timers: Array<[number, number]> }).timers.map(([t, ns]) => `${String(k)}@${ns}:${t}`)));
    for (const [key, bytes] of open) for (const start of (bytes as Map<number, unknown>).keys()) assert.ok(timerSet.has(`${String(key)}@${start}:${(start as number) + 999}`), `window ${start} of ${String(key)} has its timer`);
    const committedBefore = readCommittedLines(output).length;
    assert.ok(committedBefore > 0 && committedBefore < slidingSums(events, 1000, 1000).length, `the stop came mid-stream: ${committedBefore} windows committed`);

    const b = new JobEvents();
    const logB = new CheckpointLog();
    // Rate-limited so that the resumed job checkpoints before its input ends.
    const resumed = await executeJob({ job: JOB, args: [...args, '--rate', '6000'], config: config(3), taskManagers: 2, restoreFrom: sp.directory, listener: listening(b, logB) });
    assert.equal(resumed.status, 'FINISHED', resumed.error?.message);
    assert.deepEqual(b.restored.map((r) => r.isSavepoint), [true]);
    assertFirstCheckpointStartsChain(logB, 'windows');
    assertExact(output, slidingSums(events, 1000, 1000), 'both runs');
  });
}
