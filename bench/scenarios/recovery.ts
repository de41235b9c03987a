// Scenario `recovery`: how long a job with 1M keys of state takes from a failure to processing
// again, beside the time it takes just to read and decode the same checkpoint files.
//
// Per run, on the in-thread TaskManager:
//   1. DataGen {key: keyAt(i), v: 1} (keys 0..K-1 first, then pseudo-random) -> keyBy(key) ->
//      sum('v') -> a sink reporting to the benchmark. Checkpointing is on with a 1 h interval
//      (one periodic checkpoint right at the start, with a nearly empty state) and restart
//      strategy fixed-delay, delay 0 ms, 3 attempts.
//   2. Once the sink has seen all K keys and the start-up checkpoint is done, the benchmark
//      triggers a checkpoint (it holds every key; nothing else is being written when the failure
//      comes, so no leftover snapshot writer competes with the restore), then arms the sink,
//      which throws on its next record: the failure (time noted at the throw).
//   3. The JobMaster cancels the attempt, reads the latest checkpoint, verifies its files,
//      assigns state and deploys attempt 1; the sum subtask restores its tables; the sink of
//      attempt 1 notes its first record. recovery = that moment - the failure.
//   4. The job is cancelled (the checkpoint is retained), and on the same files the benchmark
//      times readSnapshot() with a pass over every entry (read + decode), and, for the
//      breakdown, verifyCheckpointFiles() and fileCheckpointStorageWorkerView.restoreKeyed() into a fresh
//      backend on their own, and a raw read (readFile) of every file of the checkpoint.
//
// --backend lmdb runs the keyed state on the lmdb backend (its store in the run's temporary
// directory): the restore then fills the store from the checkpoint's files.
//
// The breakdown of the recovery comes from timestamps: the throw, the JobMaster's onRestart and
// onRestored callbacks, its 'deployed attempt' log line, the restoreKeyed call (the benchmark
// wraps the storage's function for the run), the sink writer's creation in attempt 1, its first
// record.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJobMaster } from '../../src/index.ts';
import type { Logger } from '../../src/log/logger.ts';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { fileCheckpointStorageWorkerView } from '../../src/checkpoint/file-checkpoint-storage-worker-view.ts';
import { readSnapshot } from '../../src/checkpoint/snapshot-reader.ts';
import { verifyCheckpointFiles } from '../../src/checkpoint/verify-checkpoint-files.ts';
import type { OperatorRestoreState } from '../../src/checkpoint/state-handles.ts';
import { createStateBackend } from '../../src/state/create-state-backend.ts';
import { keyGroupRangeForSubtask } from '../../src/state/key-group.ts';
import {
  intFlag, fmtMs, fmtNumber, fmtRatio, median, settle, summarize, type Scenario, type ScenarioOptions, type ScenarioResult, type Table
} from '../harness.ts';
import { keyedSumJob, Probe, type KeyedRecord } from '../jobs/keyed-state-bench.ts';

const DEFAULT_KEYS = 1_000_000;
const GOAL_RATIO = 1.5;
const TIMEOUT_MS = 120_000;


async function waitFor(what: string, ready: () => boolean, failed: () => Error | undefined, everyMs = 2): Promise<void> {
  const deadline = performance.now() + TIMEOUT_MS;
  while (!ready()) {
    const e = failed();
    if (e) throw e;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A Logger that notes when each message was logged (performance.now()). */
function recordingLogger(lines: Array<{ at: number; level: string; message: string }>): Logger {
  const log: Logger = {
    debug: (message) => void lines.push({ at: performance.now(), level: 'debug', message }),
    info: (message) => void lines.push({ at: performance.now(), level: 'info', message }),
    warn: (message) => void lines.push({ at: performance.now(), level: 'warn', message }),
    error: (message) => void lines.push({ at: performance.now(), level: 'error', message }),
    child: () => log,
    // Only the JobMaster's own lines are timed: TaskManagers send none.
    enabled: () => false,
  };
  return log;
}

/** Milliseconds from the failure to each step of the recovery. */
interface Timeline {
  readonly restartCallback: number;
  readonly restoredCallback: number;
  readonly deployed: number;
  readonly restoreKeyedStart: number;
  readonly restoreKeyedEnd: number;
  readonly sinkOpened: number;
  readonly firstRecord: number;
}

interface RecoverySample {
  readonly run: number;
  readonly keys: number;
  readonly checkpointId: number;
  readonly stateBytes: number;
  readonly entries: number;
  /** Failure -> first record processed by attempt 1. */
  readonly recoveryMs: number;
  readonly timeline: Timeline;
  /** readSnapshot() of the same checkpoint and a pass over every entry. */
  readMs: number;
  /** The same files, each step on its own. */
  verifyMs: number;
  restoreKeyedMs: number;
  /** readFile of every file in the checkpoint's directory, and their bytes. */
  rawReadMs: number;
  rawBytes: number;
  readonly log: Array<{ at: number; level: string; message: string }>;
}

type Backend = 'heap' | 'lmdb';

function backendConfig(backend: Backend, dir: string) {
  return { 'state.backend.type': backend, 'state.backend.lmdb.localdir': join(dir, 'local'), 'state.backend.lmdb.cache-entries': 50_000, 'state.backend.lmdb.snapshot-thread': true } as const;
}

/** Every file under the checkpoint's directory, read whole: what the restore cannot go below. */
async function rawRead(directory: string): Promise<number> {
  let bytes = 0;
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += (await readFile(join(entry.parentPath, entry.name))).length;
  }
  return bytes;
}

async function runRecovery(run: number, keys: number, backend: Backend): Promise<RecoverySample> {
  await settle();
  const probe = new Probe({ prefill: keys });
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-recovery-'));
  const lines: Array<{ at: number; level: string; message: string }> = [];
  let restartAt = 0;
  let restoredAt = 0;
  let restoredPath = '';
  let restoredId = -1;
  let jobError: Error | undefined;
  const restoreCalls: Array<{ start: number; end: number }> = [];
  // Wrap the storage's restore of keyed state for this run, to time it inside the recovery.
  const storage = fileCheckpointStorageWorkerView as { restoreKeyed: typeof fileCheckpointStorageWorkerView.restoreKeyed };
  const original = storage.restoreKeyed;
  storage.restoreKeyed = async (backend, state, directory) => {
    const start = performance.now();
    try {
      await original(backend, state, directory);
    } finally {
      restoreCalls.push({ start, end: performance.now() });
    }
  };
  try {
    const master = await createJobMaster({
      job: keyedSumJob({ keys, shape: 'restore' }, probe),
      config: {
        'execution.checkpointing.interval': '1 h',
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        ...backendConfig(backend, dir),
        'execution.checkpointing.externalized-checkpoint-retention': 'RETAIN_ON_CANCELLATION',
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.delay': '0 ms',
        'restart-strategy.fixed-delay.attempts': 3,
      },
      log: recordingLogger(lines),
      listener: {
        onRestart: () => {
          restartAt = performance.now();
        },
        onRestored: (info) => {
          restoredAt = performance.now();
          restoredPath = info.path;
          restoredId = info.checkpointId;
        },
      },
    });
    const done = master.run().then((r) => {
      if (r.status !== 'CANCELED') jobError = r.error ?? new Error(`the job ended ${r.status}`);
      return r;
    });
    const failed = () => jobError;
    await waitFor('the prefill', () => probe.prefilledAt > 0 && master.checkpoints.pendingCount === 0 && master.checkpoints.stats.counts.completed >= 1, failed);
    const cp = await master.checkpoints.trigger({ type: 'checkpoint' });
    const entries = cp.metadata.operators.reduce((n, o) => n + o.subtasks.reduce((m, s) => m + (s.keyed?.entries ?? 0), 0), 0);
    if (entries !== keys) throw new Error(`checkpoint ${cp.id} holds ${entries} entries, expected ${keys}`);
    probe.armed = true;
    await waitFor('the first record after the restore', () => probe.firstAfterRestoreAt > 0, failed, 1);
    await master.cancel();
    await done;
    if (restoredId !== cp.id) throw new Error(`the job restored checkpoint ${restoredId}, expected ${cp.id}`);
    if (restoreCalls.length !== 1) throw new Error(`expected one restore of keyed state, saw ${restoreCalls.length}`);
    const deployed = lines.find((l) => l.message === 'deployed attempt 1');
    const f = probe.failedAt;
    const sample: RecoverySample = {
      run,
      keys,
      checkpointId: cp.id,
      stateBytes: cp.stateBytes,
      entries,
      recoveryMs: probe.firstAfterRestoreAt - f,
      timeline: {
        restartCallback: restartAt - f,
        restoredCallback: restoredAt - f,
        deployed: (deployed?.at ?? NaN) - f,
        restoreKeyedStart: restoreCalls[0]!.start - f,
        restoreKeyedEnd: restoreCalls[0]!.end - f,
        sinkOpened: probe.reopenedAt - f,
        firstRecord: probe.firstAfterRestoreAt - f,
      },
      readMs: NaN,
      verifyMs: NaN,
      restoreKeyedMs: NaN,
      rawReadMs: NaN,
      rawBytes: 0,
      log: lines.filter((l) => l.at >= f).map((l) => ({ ...l, at: l.at - f })),
    };
    storage.restoreKeyed = original;

    // The baseline and the breakdown, on the same files, right after (rotating order).
    const steps: Array<() => Promise<void>> = [
      async () => {
        await settle();
        const start = performance.now();
        const snapshot = await readSnapshot(restoredPath);
        let n = 0;
        let sum = 0;
        for (const op of snapshot.operators) {
          for (const state of op.keyed) {
            for (const list of state.entries.values()) {
              for (const [, value] of list) {
                sum += (value as KeyedRecord).v;
                n++;
              }
            }
          }
        }
        sample.readMs = performance.now() - start;
        if (n !== keys || !(sum > 0)) throw new Error(`readSnapshot gave ${n} entries, expected ${keys}`);
      },
      async () => {
        await settle();
        const { metadata, directory } = await readMetadata(restoredPath);
        const start = performance.now();
        await verifyCheckpointFiles(metadata, directory);
        sample.verifyMs = performance.now() - start;
      },
      async () => {
        await settle();
        const { metadata, directory } = await readMetadata(restoredPath);
        const op = metadata.operators.find((o) => o.uid === 'sum')!;
        const state: OperatorRestoreState = { keyed: op.subtasks.flatMap((s) => (s.keyed ? [s.keyed] : [])), operator: {} };
        const factory = createStateBackend(backendConfig(backend, join(dir, 'baseline')));
        const target = factory.createKeyedStateBackend({ jobId: 'bench', uid: 'sum', subtask: 0, attempt: 0, keyGroupRange: keyGroupRangeForSubtask(0, op.parallelism, op.maxParallelism), maxParallelism: op.maxParallelism, describe: () => 'benchmark' });
        try {
          const start = performance.now();
          await original(target, state, directory);
          sample.restoreKeyedMs = performance.now() - start;
          const names = new Set(state.keyed.flatMap((h) => h.states.map((x) => x.name)));
          let n = 0;
          for (const name of names) n += target.keysOf(name).length;
          if (n !== keys) throw new Error(`restoreKeyed gave ${n} entries, expected ${keys}`);
        } finally {
          target.close();
        }
      },
      async () => {
        await settle();
        const { directory } = await readMetadata(restoredPath);
        const start = performance.now();
        sample.rawBytes = await rawRead(directory);
        sample.rawReadMs = performance.now() - start;
      },
    ];
    for (let i = 0; i < steps.length; i++) await steps[(((i + run) % steps.length) + steps.length) % steps.length]!();
    return sample;
  } finally {
    storage.restoreKeyed = original;
    rmSync(dir, { recursive: true, force: true });
  }
}

export const recovery: Scenario = {
  name: 'recovery',
  description: `time from a failure to the first record processed after the restore, with ${fmtNumber(DEFAULT_KEYS)} keys of state, vs reading and decoding the same checkpoint`,
  flags: {
    keys: `keys of state (default ${fmtNumber(DEFAULT_KEYS)})`,
    warmup: 'unmeasured warm-up runs (default 1, 0 to skip)',
    backend: 'the keyed state backend, heap (default) or lmdb',
  },

  async run(options): Promise<ScenarioResult> {
    const { log, runs } = options;
    const keys = intFlag(options, 'keys', DEFAULT_KEYS);
    const warmups = options.flags.warmup === '0' ? 0 : intFlag(options, 'warmup', 1);
    const backend = (options.flags.backend ?? 'heap') as Backend;
    if (backend !== 'heap' && backend !== 'lmdb') throw new Error(`--backend must be heap or lmdb, got '${backend}'`);
    for (let i = 0; i < warmups; i++) {
      log(`warm-up run ${i + 1}/${warmups}`);
      await runRecovery(-1, keys, backend);
    }
    const samples: RecoverySample[] = [];
    for (let run = 0; run < runs; run++) {
      const s = await runRecovery(run, keys, backend);
      samples.push(s);
      log(
        `run ${run + 1}/${runs}: recovery ${fmtMs(s.recoveryMs)}, read+decode ${fmtMs(s.readMs)} (${fmtRatio(s.recoveryMs / s.readMs)}), raw read ${fmtMs(s.rawReadMs)} (${fmtRatio(s.recoveryMs / s.rawReadMs)}); verify ${fmtMs(s.verifyMs)}, restoreKeyed ${fmtMs(s.restoreKeyedMs)} (in the recovery ${fmtMs(s.timeline.restoreKeyedEnd - s.timeline.restoreKeyedStart)})`,
      );
    }
    const ratios = summarize(samples.map((s) => s.recoveryMs / s.readMs));
    const rec = summarize(samples.map((s) => s.recoveryMs));
    const read = summarize(samples.map((s) => s.readMs));
    const raw = summarize(samples.map((s) => s.rawReadMs));
    const rawRatios = summarize(samples.map((s) => s.recoveryMs / s.rawReadMs));
    const med = (f: (s: RecoverySample) => number) => median(samples.map(f));
    const table: Table = {
      columns: ['measure', 'median', 'min', 'max'],
      rows: [
        ['recovery: failure -> first record of attempt 1', fmtMs(rec.median), fmtMs(rec.min), fmtMs(rec.max)],
        ['readSnapshot() + pass over every entry', fmtMs(read.median), fmtMs(read.min), fmtMs(read.max)],
        ['recovery / read+decode (per run)', fmtRatio(ratios.median), fmtRatio(ratios.min), fmtRatio(ratios.max)],
        ['raw read: readFile of every file of the checkpoint', fmtMs(raw.median), fmtMs(raw.min), fmtMs(raw.max)],
        ['recovery / raw read (per run)', fmtRatio(rawRatios.median), fmtRatio(rawRatios.min), fmtRatio(rawRatios.max)],
      ],
    };
    const t = (f: (x: Timeline) => number) => med((s) => f(s.timeline));
    const phases: Array<[string, number, string]> = [
      ['failure -> JobMaster onRestart', t((x) => x.restartCallback), 'the failed subtask reports; the JobMaster broadcasts cancel, decides to restart'],
      ['-> onRestored', t((x) => x.restoredCallback - x.restartCallback), `wait for cancelled subtasks, read _metadata, verify the files (alone: ${fmtMs(med((s) => s.verifyMs))}), assign state`],
      ['-> deployed attempt 1', t((x) => x.deployed - x.restoredCallback), 'splits, deployment descriptors, send'],
      ['-> restoreKeyed starts', t((x) => x.restoreKeyedStart - x.deployed), 'the TaskManager cancels the old tasks, builds channels and tasks'],
      ['restoreKeyed (read, checksum, decode, fill tables)', t((x) => x.restoreKeyedEnd - x.restoreKeyedStart), `the same on its own: ${fmtMs(med((s) => s.restoreKeyedMs))}`],
      ['-> sink writer of attempt 1 created', t((x) => x.sinkOpened - x.restoreKeyedEnd), 'rest of the task construction, opening the chain (sink first)'],
      ['-> first record at the sink', t((x) => x.firstRecord - x.sinkOpened), 'open the rest, source polls, a buffer travels to the sum, sum -> sink'],
    ];
    const breakdown: Table = {
      columns: ['step (medians over runs)', 'ms', 'share', 'what happens'],
      align: ['left', 'right', 'right', 'left'],
      rows: phases.map(([name, ms, what]) => [name, ms.toFixed(1), `${((100 * ms) / rec.median).toFixed(0)}%`, what]),
    };
    const s0 = samples[0]!;
    const notes = [
      `${fmtNumber(keys)} keys on the ${backend} backend, state file ${(s0.stateBytes / (1024 * 1024)).toFixed(1)} MB (${fmtNumber(s0.entries)} entries), in-thread TaskManager, restart strategy fixed-delay 0 ms; ${runs} runs${warmups ? ` after ${warmups} warm-up run(s)` : ''}`,
      `read+decode = readSnapshot(<restored checkpoint>) (reads and checksums every state file, unpacks every frame, groups entries by key group) and one pass touching every value; measured right after each recovery, in the same process`,
      `goal recovery / read+decode <= ${GOAL_RATIO}x: ${fmtRatio(ratios.median)} median of per-run ratios (range ${fmtRatio(ratios.min)}..${fmtRatio(ratios.max)}): ${ratios.median <= GOAL_RATIO ? 'met' : 'NOT met'}`,
    ];
    return {
      table,
      extraTables: [{ title: `Where the recovery goes (median ${fmtMs(rec.median)})`, table: breakdown }],
      notes,
      data: {
        settings: { keys, runs, warmups, backend, taskManagers: 0, restartDelayMs: 0 },
        summary: { recoveryMs: rec, readMs: read, ratio: ratios, rawReadMs: raw, rawRatio: rawRatios, goal: GOAL_RATIO, verifyMs: summarize(samples.map((s) => s.verifyMs)), restoreKeyedMs: summarize(samples.map((s) => s.restoreKeyedMs)) },
        samples,
      },
    };
  },
};
