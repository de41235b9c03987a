// Windowed aggregation is exactly-once end to end: window contents and window timers are keyed
// state in the checkpoints, sources rewind to their positions, and the FileSink commits each
// window's result once. Across 5 injected failures (in this thread and on worker TaskManagers),
// and across a stop-with-savepoint at parallelism 2 whose savepoint holds open windows and their
// timers, resumed at parallelism 3: the committed results equal the independent computation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { join } from 'node:path';
import { createJobMaster, executeJob, type JobMaster } from '../../src/index.ts';
import { readSnapshot } from '../../src/checkpoint/snapshot-reader.ts';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { isTerminal } from '../../src/coordinator/job-status.ts';
import { diffSortedLines, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { eventsBeforeSplits, generatedEvents, sessionSums, slidingSums } from '../fixtures/event-time-expectations.ts';
import { EVENT_TIME_START } from '../fixtures/jobs/event-time-job.ts';
import { stateBackendConfig } from '../fixtures/state-backends.ts';
import type { StateBackendType } from '../../src/state/state-backend.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'event-time-job.ts');
const EVENTS = 12_000;
const OOO = 300;
const events = generatedEvents({ seed: 7, events: EVENTS, keys: 20, ooo: OOO, start: EVENT_TIME_START });

let root: string;
const started: JobMaster[] = [];
before(() => {
  root = makeTempDir('exactly-once-windows');
});
after(async () => {
  for (const m of started) if (!isTerminal(m.status)) await m.cancel();
  removeDir(root);
});

describe('windows under injected failures', () => {
  const cases = [
    { kind: 'tumbling', extra: ['--size', '1000'], expected: () => slidingSums(events, 1000, 1000), parallelism: 2, taskManagers: 0, seed: 31 },
    { kind: 'sliding', extra: ['--size', '1000', '--slide', '250'], expected: () => slidingSums(events, 1000, 250), parallelism: 3, taskManagers: 2, seed: 32 },
    { kind: 'session', extra: ['--gap', '60'], expected: () => sessionSums(events, 60), parallelism: 2, taskManagers: 2, seed: 33 },
    // Two-phase: what the first phase held before each barrier is in the window state of that checkpoint.
    { kind: 'tumbling-two-phase', extra: ['--size', '1000'], expected: () => slidingSums(events, 1000, 1000), parallelism: 3, taskManagers: 2, seed: 36 },
    // Window contents, merging windows and timers on the on-disk backend.
    { kind: 'sliding', extra: ['--size', '1000', '--slide', '250'], expected: () => slidingSums(events, 1000, 250), parallelism: 2, taskManagers: 0, seed: 34, backend: 'lmdb' },
    { kind: 'session', extra: ['--gap', '60'], expected: () => sessionSums(events, 60), parallelism: 3, taskManagers: 2, seed: 35, backend: 'lmdb' },
  ] as Array<{ kind: string; extra: string[]; expected: () => string[]; parallelism: number; taskManagers: number; seed: number; backend?: StateBackendType }>;
  for (const c of cases) {
    const backend = c.backend ?? 'heap';
    test(`${c.kind} windows at parallelism ${c.parallelism}${c.taskManagers ? ` on ${c.taskManagers} worker TaskManagers` : ' in this thread'}, ${backend} state backend: committed results are exact after 5 failures`, async () => {
      const dir = join(root, `${c.kind}-p${c.parallelism}-${backend}`);
      const output = join(dir, 'output');
      const jobEvents = new JobEvents();
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
          ...stateBackendConfig(backend),
        },
        taskManagers: c.taskManagers,
        faults: { failures: 5, seed: c.seed, minRecords: 300, maxRecords: 2500 },
        listener: jobEvents.listener,
      });
      assert.equal(result.status, 'FINISHED', `${result.error?.message}; ${jobEvents.describe()}`);
      assert.equal(result.injectedFailures, 5);
      assert.ok(jobEvents.restored.length >= 2, `some restarts restored a checkpoint (with open windows and timers): ${jobEvents.describe()}`);
      const diff = diffSortedLines(readCommittedLines(output), c.expected());
      assert.equal(diff, undefined, `committed window results are not exactly-once: ${diff}`);
    });
  }
});

test('unaligned checkpoints behind a slow sink: a restore replays in-flight records with their timestamps, and sliding windows stay exact', async () => {
  const dir = join(root, 'unaligned');
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
  };
  // The first run is cancelled as soon as a checkpoint with in-flight records completes: the next one restores it.
  let withChannelState: { id: number; directory: string } | undefined;
  let first!: JobMaster;
  first = await createJobMaster({
    job: JOB,
    args: [...args, '--rate', '4000', '--sink-rate', '50'],
    config,
    listener: {
      onCheckpointCompleted: (c) => {
        if (withChannelState || (first.checkpoints.stats.get(c.id)?.persistedData ?? 0) === 0) return;
        withChannelState = { id: c.id, directory: c.directory };
        void first.cancel();
      },
    },
  });
  started.push(first);
  assert.equal((await first.run()).status, 'CANCELED', 'a checkpoint with in-flight records completed before the input ended');
  const { metadata } = await readMetadata(withChannelState!.directory);
  const inFlight = metadata.operators.flatMap((o) => o.subtasks).reduce((n, st) => n + Object.values(st.inputChannels ?? {}).reduce((m, h) => m + h.records, 0) + Object.values(st.outputChannels ?? {}).reduce((m, h) => m + h.records, 0), 0);
  assert.ok(inFlight > 0, 'the restored checkpoint holds in-flight records');

  const events2 = new JobEvents();
  const resumed = await executeJob({ job: JOB, args: [...args, '--rate', '20000'], config, restoreFrom: withChannelState!.directory, listener: events2.listener });
  assert.equal(resumed.status, 'FINISHED', resumed.error?.message);
  assert.deepEqual(events2.restored.map((r) => r.checkpointId), [withChannelState!.id]);
  const diff = diffSortedLines(readCommittedLines(output), slidingSums(events, 1000, 250));
  assert.equal(diff, undefined, `committed window results are not exactly-once: ${diff}`);
});

test('stop with savepoint at parallelism 2 (open windows and their timers in it), resume at 3 on worker TaskManagers: every window result committed once', async () => {
  const output = join(root, 'savepoint-output');
  const savepoints = join(root, 'savepoints');
  const args = ['--kind', 'tumbling', '--size', '1000', '--events', String(EVENTS), '--ooo', String(OOO), '--output', output, '--checkpoint-interval', '100'];
  const a = new JobEvents();
  const first = await createJobMaster({ job: JOB, args: [...args, '--rate', '3000'], config: { 'parallelism.default': 2, 'pipeline.auto-watermark-interval': '20 ms' }, listener: a.listener });
  started.push(first);
  const firstDone = first.run();
  await first.whenRunning();
  await a.waitFor('three completed checkpoints', () => a.completed.length >= 3);
  const sp = await first.stopWithSavepoint(savepoints);
  assert.equal((await firstDone).status, 'FINISHED');

  const snap = await readSnapshot(sp.directory, { uid: 'windows' });
  const windows = snap.operators[0]!;
  assert.equal(windows.parallelism, 2);
  const entries = (name: string) => [...(windows.keyed.find((s) => s.name === name)?.entries.values() ?? [])].flat();
  const open = entries('_window-contents');
  const timers = entries('_timer_state/event_window-timers');
  assert.ok(open.length > 0, `the savepoint holds open windows: ${windows.keyed.map((s) => s.name).join(', ')}`);
  assert.ok(timers.length > 0, 'and their timers');
  // Every open window of a key has its timer (at its end - 1) in the same key's timer state.
  const timerSet = new Set(timers.flatMap(([k, v]) => (v as { timers: Array<[number, number]> }).timers.map(([t, ns]) => `${String(k)}@${ns}:${t}`)));
  for (const [key, bytes] of open) for (const start of (bytes as Map<number, unknown>).keys()) assert.ok(timerSet.has(`${String(key)}@${start}:${(start as number) + 999}`), `window ${start} of ${String(key)} has its timer`);
  const committedBefore = readCommittedLines(output).length;
  assert.ok(committedBefore > 0 && committedBefore < slidingSums(events, 1000, 1000).length, `the stop came mid-stream: ${committedBefore} windows committed`);

  const b = new JobEvents();
  const resumed = await executeJob({ job: JOB, args: [...args, '--rate', '20000'], config: { 'parallelism.default': 3, 'pipeline.auto-watermark-interval': '20 ms' }, taskManagers: 2, restoreFrom: sp.directory, listener: b.listener });
  assert.equal(resumed.status, 'FINISHED', resumed.error?.message);
  assert.deepEqual(b.restored.map((r) => r.isSavepoint), [true]);
  const diff = diffSortedLines(readCommittedLines(output), slidingSums(events, 1000, 1000));
  assert.equal(diff, undefined, `the committed windows over both runs are not exactly-once: ${diff}`);
});

test('two phases switched on and off across savepoints (the window operator\'s state is the same; the first phase has none): every window result committed once', async () => {
  const output = join(root, 'two-phase-output');
  const args = (kind: string) => ['--kind', kind, '--size', '1000', '--events', String(EVENTS), '--ooo', String(OOO), '--output', output, '--checkpoint-interval', '100'];
  const config = { 'parallelism.default': 2, 'pipeline.auto-watermark-interval': '20 ms' };
  // One phase, then two (at parallelism 3), then one again, each run stopped with a savepoint mid-stream.
  let restoreFrom: string | undefined;
  for (const [i, kind] of ['tumbling-aggregate', 'tumbling-two-phase'].entries()) {
    const a = new JobEvents();
    const job = await createJobMaster({ job: JOB, args: [...args(kind), '--rate', '3000'], config: { ...config, 'parallelism.default': 2 + i }, listener: a.listener, ...(restoreFrom ? { restoreFrom } : {}) });
    started.push(job);
    const done = job.run();
    await job.whenRunning();
    await a.waitFor('two completed checkpoints', () => a.completed.length >= 2);
    const sp = await job.stopWithSavepoint(join(root, `two-phase-savepoints-${i}`));
    assert.equal((await done).status, 'FINISHED');
    if (restoreFrom) assert.deepEqual(a.restored.map((r) => r.isSavepoint), [true]);
    restoreFrom = sp.directory;
  }
  const open = (await readSnapshot(restoreFrom!, { uid: 'windows' })).operators[0]!.keyed.find((s) => s.name === '_window-contents');
  assert.ok([...(open?.entries.values() ?? [])].flat().length > 0, 'the last savepoint holds open windows');
  const committedBefore = readCommittedLines(output).length;
  assert.ok(committedBefore > 0 && committedBefore < slidingSums(events, 1000, 1000).length, `the stops came mid-stream: ${committedBefore} windows committed`);
  const b = new JobEvents();
  const resumed = await executeJob({ job: JOB, args: [...args('tumbling-aggregate'), '--rate', '20000'], config, restoreFrom, listener: b.listener });
  assert.equal(resumed.status, 'FINISHED', resumed.error?.message);
  assert.deepEqual(b.restored.map((r) => r.isSavepoint), [true]);
  const diff = diffSortedLines(readCommittedLines(output), slidingSums(events, 1000, 1000));
  assert.equal(diff, undefined, `the committed windows over the three runs are not exactly-once: ${diff}`);
});

test('stop with savepoint --drain: the final watermark fires every open window with what it holds, and the savepoint has no window left open', async () => {
  const output = join(root, 'drain-output');
  const a = new JobEvents();
  const job = await createJobMaster({
    job: JOB,
    args: ['--kind', 'tumbling', '--size', '1000', '--events', String(EVENTS), '--ooo', String(OOO), '--output', output, '--checkpoint-interval', '100', '--rate', '3000'],
    config: { 'parallelism.default': 2, 'pipeline.auto-watermark-interval': '20 ms' },
    listener: a.listener,
  });
  started.push(job);
  const done = job.run();
  await job.whenRunning();
  await a.waitFor('two completed checkpoints', () => a.completed.length >= 2);
  const sp = await job.stopWithSavepoint(join(root, 'drain-savepoints'), true);
  assert.equal((await done).status, 'FINISHED');
  const snap = await readSnapshot(sp.directory);
  const splits = snap.operators.find((o) => o.uid === 'source')!.operator['_source-splits']!.values as Array<{ lane: number; lanes: number; next: number }>;
  const read = eventsBeforeSplits({ seed: 7, keys: 20, ooo: OOO, start: EVENT_TIME_START }, splits);
  assert.ok(read.length > 0 && read.length < EVENTS, `the drain came mid-stream: ${read.length} events read`);
  const windows = snap.operators.find((o) => o.uid === 'windows')!;
  const open = windows.keyed.find((s) => s.name === '_window-contents');
  assert.equal([...(open?.entries.values() ?? [])].flat().length, 0, 'every window fired and was cleaned up before the savepoint');
  const diff = diffSortedLines(readCommittedLines(output), slidingSums(read, 1000, 1000));
  assert.equal(diff, undefined, `the committed windows are not those of the events read, each once: ${diff}`);
});
