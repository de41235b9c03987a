// Scenario `backpressure`: aligned against unaligned exactly-once checkpoints in a job whose sink
// is far slower than its source, so that every channel is full when a barrier comes.
//
//   job     DataGen -> rebalance -> map -> keyBy -> sum -> rebalance -> throttled sink
//           (bench/jobs/backpressure-bench.ts), parallelism 2, by default on 2 worker-thread
//           TaskManagers (subtask i of every vertex on TaskManager i, so the all-to-all edges
//           cross threads); with --hops 1, DataGen -> rebalance -> map -> throttled sink, the
//           shape of issue 31's debloating goal (one all-to-all edge between the source and the
//           slow sink); checkpoints every 1 s into a fresh temporary directory per run
//           (under --checkpoint-dir, default the system temporary directory).
//   sink    each sink subtask waits 1/rate s per record (timers in its writer's ready(), at most
//           --sink-wait-ms, default 10, at a time, like requests to a slow external system); the
//           rate is --sink-share (default 0.15) of the job's capacity, measured first with an
//           unthrottled sink and no checkpoints (best of 2 calibration runs); --sink-rate sets it
//           directly, which makes invocations comparable: an aligned checkpoint waits for the
//           in-flight records to drain, so its duration is about in-flight records / sink rate,
//           while an unaligned one costs about the same whatever the rate.
//   runs    every run measures both variants, in an order that rotates from run to run; each job
//           runs until the sink has its first records, then --warmup-seconds (default 3: the
//           channels fill and the first checkpoints pass), then --seconds (default 8) measured,
//           then it is cancelled.
//
// Reported per variant: the completed checkpoints triggered and completed inside the measured
// windows (end-to-end duration; the largest start delay and alignment time over the subtasks;
// persisted in-flight bytes, i.e. channel state, per checkpoint), the throughput of the sink
// (records it took in over the window, from the subtasks' metrics), how much of the window the
// sources were blocked on full outputs (near 100%: the sink sets the pace) and the machine's load
// average (the figures of an unaligned checkpoint, tens of ms, suffer most from a busy machine).
// A second table shows where a checkpoint spends its time, per vertex (the slowest subtask,
// medians over checkpoints): start delay (trigger -> the barrier reaches the subtask: the first
// barrier for aligned, the priority barrier for unaligned), alignment (first -> last barrier),
// the synchronous and asynchronous parts of the snapshot (async: writing operator, keyed and
// channel state, and for unaligned waiting for the last barrier), and trigger -> acknowledgement.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createJobMaster, type JobMaster } from '../../src/index.ts';
import type { CheckpointStats } from '../../src/coordinator/checkpoint-stats.ts';
import {
  intFlag,
  BENCH_DIR,
  fmtMs,
  fmtNumber,
  fmtRatio,
  max,
  median,
  settle,
  summarize,
  type Scenario,
  type ScenarioOptions,
  type ScenarioResult,
  type Summary,
  type Table,
} from '../harness.ts';

const JOB = join(BENCH_DIR, 'jobs', 'backpressure-bench.ts');
const DEFAULT_PARALLELISM = 2;
const DEFAULT_TASK_MANAGERS = 2;
const DEFAULT_INTERVAL_MS = 1000;
const DEFAULT_SECONDS = 8;
const DEFAULT_WARMUP_SECONDS = 3;
const DEFAULT_SINK_SHARE = 0.15;
const DEFAULT_KEYS = 10_000;
const DEFAULT_PAYLOAD = 16;
const DEFAULT_SINK_WAIT_MS = 10;
const CALIBRATION_SECONDS = 3;
/** Calibration runs; the highest rate counts (the first job of a process runs cold). */
const CALIBRATION_RUNS = 2;
const GOAL_DURATION_RATIO = 0.1;
const GOAL_THROUGHPUT_RATIO = 0.9;

type VariantId = 'aligned' | 'unaligned' | 'aligned-debloated';
const VARIANTS: readonly VariantId[] = ['aligned', 'unaligned', 'aligned-debloated'];
/** Buffer debloating's target (taskmanager.network.memory.buffer-debloat.target) unless --debloat-target-ms: Flink's default. */
const DEFAULT_DEBLOAT_TARGET_MS = 1000;

interface Settings {
  readonly parallelism: number;
  readonly taskManagers: number;
  readonly intervalMs: number;
  readonly seconds: number;
  readonly debloatTargetMs: number;
  readonly warmupSeconds: number;
  readonly keys: number;
  readonly payload: number;
  readonly sinkWaitMs: number;
  /** Network hops of the job: 3 or 1 (bench/jobs/backpressure-bench.ts). */
  readonly hops: number;
  readonly bufferRecords: number | undefined;
  readonly credits: number | undefined;
  /** Where the per-run checkpoint directories are made. */
  readonly checkpointParent: string;
}

/** One vertex's part of one checkpoint: the slowest subtask's figures. */
interface VertexFigures {
  readonly startDelayMs: number;
  readonly alignmentMs: number;
  /** Trigger -> the last of the vertex's subtasks acknowledged. */
  readonly ackMs: number;
  /** The longest synchronous part, and the longest asynchronous part (writing state and channel state, waiting for the last barrier). */
  readonly syncMs: number;
  readonly asyncMs: number;
  readonly persistedBytes: number;
}

interface CheckpointFigures {
  readonly id: number;
  readonly endToEndMs: number;
  readonly startDelayMaxMs: number;
  readonly alignmentMaxMs: number;
  readonly persistedBytes: number;
  readonly processedBytes: number;
  readonly stateBytes: number;
  readonly unaligned: boolean;
  readonly vertices: Record<string, VertexFigures>;
}

interface RunSample {
  readonly run: number;
  readonly variant: VariantId;
  readonly windowMs: number;
  readonly sinkRecords: number;
  readonly sourceRecords: number;
  readonly recordsPerSecond: number;
  readonly checkpoints: CheckpointFigures[];
  /** Share of the window the source subtasks spent blocked on full outputs (mean over subtasks): ~1 when the sink holds them back. */
  readonly sourceBackpressure: number;
  /** The machine's 1-minute load average at the end of the window. */
  readonly load: number;
  /** Checkpoints triggered in the window that failed, or were still in progress at its end. */
  readonly failed: number;
  readonly inProgressAtEnd: number;
}


function numberFlag(options: ScenarioOptions, name: string, fallback: number): number {
  const text = options.flags[name];
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a number > 0, got '${text}'`);
  return n;
}

function rotated<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

const fmtKb = (bytes: number) => (Number.isFinite(bytes) ? `${fmtNumber(bytes / 1024, 0)} KiB` : '-');

/** Records the sources emitted and the sinks took in, and the sources' blocked time, fresh from every TaskManager. */
async function counts(master: JobMaster): Promise<{ source: number; sink: number; sourceBlockedMs: number; sources: number; at: number }> {
  const { tasks, silent } = await master.describeTasks(5000);
  if (silent.length > 0) throw new Error(`TaskManager(s) ${silent.join(', ')} did not answer within 5 s`);
  let source = 0;
  let sink = 0;
  let sourceBlockedMs = 0;
  let sources = 0;
  for (const t of tasks) {
    const vertex = master.graph.vertices.find((v) => v.id === t.vertexId)!;
    if (vertex.isSource) {
      source += t.recordsIn;
      sourceBlockedMs += t.backpressure;
      sources++;
    }
    if (vertex.operators.some((o) => o.spec.kind === 'sink')) sink += t.recordsIn;
  }
  return { source, sink, sourceBlockedMs, sources, at: performance.now() };
}

function figuresOf(master: JobMaster, s: CheckpointStats): CheckpointFigures {
  const vertices: Record<string, VertexFigures> = {};
  for (const v of master.graph.vertices) {
    const subs = s.subtasks.filter((t) => t.vertexId === v.id);
    vertices[v.name] = {
      startDelayMs: max(subs.map((t) => t.startDelayMs)),
      alignmentMs: max(subs.map((t) => t.alignmentMs)),
      ackMs: max(subs.map((t) => t.ackTimestamp - s.triggerTimestamp)),
      syncMs: max(subs.map((t) => t.syncMs)),
      asyncMs: max(subs.map((t) => t.asyncMs)),
      persistedBytes: subs.reduce((n, t) => n + t.persistedBytes, 0),
    };
  }
  return {
    id: s.id,
    endToEndMs: s.endToEndDuration,
    startDelayMaxMs: max(s.subtasks.map((t) => t.startDelayMs)),
    alignmentMaxMs: max(s.subtasks.map((t) => t.alignmentMs)),
    persistedBytes: s.persistedData,
    processedBytes: s.processedData,
    stateBytes: s.stateSize,
    unaligned: s.unaligned,
    vertices,
  };
}

interface JobRun {
  readonly master: JobMaster;
  readonly window: { from: number; to: number; fromDate: number; toDate: number };
  readonly sinkRecords: number;
  readonly sourceRecords: number;
  readonly sourceBackpressure: number;
}

/**
 * Starts the job, waits for the sink's first records and the warm-up, measures `seconds`, and
 * cancels it. `inspect` runs before the cancel, while the master still has everything.
 */
async function runJob<T>(
  s: Settings,
  sinkRate: number,
  checkpointing: { unaligned: boolean; debloat: boolean; dir: string } | undefined,
  seconds: number,
  warmupSeconds: number,
  inspect: (r: JobRun) => T,
): Promise<T> {
  const config: Record<string, unknown> = {};
  if (checkpointing) {
    Object.assign(config, {
      'execution.checkpointing.interval': s.intervalMs,
      'execution.checkpointing.mode': 'exactly-once',
      'execution.checkpointing.dir': checkpointing.dir,
      'execution.checkpointing.unaligned.enabled': checkpointing.unaligned,
      'taskmanager.network.memory.buffer-debloat.enabled': checkpointing.debloat,
      'taskmanager.network.memory.buffer-debloat.target': s.debloatTargetMs,
    });
  }
  if (s.bufferRecords !== undefined) config['taskmanager.network.buffer-records'] = s.bufferRecords;
  if (s.credits !== undefined) config['taskmanager.network.credits-per-channel'] = s.credits;
  const master = await createJobMaster({
    job: JOB,
    args: ['--parallelism', String(s.parallelism), '--keys', String(s.keys), '--payload', String(s.payload), '--sink-rate', String(sinkRate), '--sink-wait-ms', String(s.sinkWaitMs), '--hops', String(s.hops)],
    config,
    taskManagers: s.taskManagers,
  });
  const done = master.run();
  let ended: string | undefined;
  void done.then((r) => (ended = `${r.status}${r.error ? `: ${r.error.message}` : ''}`));
  const alive = () => {
    if (ended !== undefined) throw new Error(`the benchmark job ended early: ${ended}`);
  };
  try {
    const started = performance.now();
    for (;;) {
      alive();
      if (master.status === 'RUNNING' && (await counts(master)).sink > 0) break;
      if (performance.now() - started > 30_000) throw new Error('no record reached the sink within 30 s');
      await sleep(50);
    }
    await sleep(warmupSeconds * 1000);
    alive();
    const fromDate = Date.now();
    const a = await counts(master);
    await sleep(seconds * 1000);
    const b = await counts(master);
    const toDate = Date.now();
    alive();
    const sourceBackpressure = (b.sourceBlockedMs - a.sourceBlockedMs) / Math.max(1, b.sources) / (b.at - a.at);
    return inspect({ master, window: { from: a.at, to: b.at, fromDate, toDate }, sinkRecords: b.sink - a.sink, sourceRecords: b.source - a.source, sourceBackpressure });
  } finally {
    await master.cancel();
    await done;
  }
}

/** Records/s through the job with an unthrottled sink and no checkpoints: what the source could push. */
async function calibrate(s: Settings): Promise<number> {
  await settle();
  return runJob(s, 0, undefined, CALIBRATION_SECONDS, 2, (r) => r.sinkRecords / ((r.window.to - r.window.from) / 1000));
}

async function measure(s: Settings, variant: VariantId, run: number, sinkRatePerSubtask: number): Promise<RunSample> {
  await settle();
  const dir = mkdtempSync(join(s.checkpointParent, 'weir-bench-bp-'));
  try {
    return await runJob(s, sinkRatePerSubtask, { unaligned: variant === 'unaligned', debloat: variant === 'aligned-debloated', dir }, s.seconds, s.warmupSeconds, (r) => {
      const history = r.master.checkpoints.stats.history();
      const inWindow = history.filter((c) => !c.isSavepoint && c.triggerTimestamp >= r.window.fromDate && c.triggerTimestamp <= r.window.toDate);
      const completed = inWindow.filter((c) => c.status === 'COMPLETED' && c.triggerTimestamp + c.endToEndDuration <= r.window.toDate);
      const windowMs = r.window.to - r.window.from;
      return {
        run,
        variant,
        windowMs,
        sinkRecords: r.sinkRecords,
        sourceRecords: r.sourceRecords,
        recordsPerSecond: r.sinkRecords / (windowMs / 1000),
        checkpoints: completed.map((c) => figuresOf(r.master, c)),
        sourceBackpressure: r.sourceBackpressure,
        load: loadavg()[0]!,
        failed: inWindow.filter((c) => c.status === 'FAILED').length,
        inProgressAtEnd: inWindow.filter((c) => c.status === 'IN_PROGRESS').length,
      };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const backpressure: Scenario = {
  name: 'backpressure',
  description: 'aligned vs unaligned checkpoints under backpressure (sink at ~15% of the source): checkpoint duration, in-flight data, throughput',
  flags: {
    seconds: `measured seconds per job run (default ${DEFAULT_SECONDS})`,
    'debloat-target-ms': `the aligned-debloated variant's buffer-debloat.target (default ${DEFAULT_DEBLOAT_TARGET_MS})`,
    'warmup-seconds': `seconds between the sink's first record and the measurement (default ${DEFAULT_WARMUP_SECONDS})`,
    interval: `checkpoint interval in ms (default ${DEFAULT_INTERVAL_MS})`,
    'sink-share': `sink rate as a share of the calibrated capacity (default ${DEFAULT_SINK_SHARE})`,
    'sink-rate': 'sink rate in records/s over all sink subtasks (skips the calibration)',
    'sink-wait-ms': `longest single wait of the sink's ready(), one "request" (default ${DEFAULT_SINK_WAIT_MS}; 0: one wait per step for all it owes)`,
    parallelism: `subtasks per vertex (default ${DEFAULT_PARALLELISM})`,
    'task-managers': `worker-thread TaskManagers, 0 for one in this thread (default ${DEFAULT_TASK_MANAGERS})`,
    keys: `keys of the rolling sum (default ${fmtNumber(DEFAULT_KEYS)})`,
    payload: `characters of padding per record (default ${DEFAULT_PAYLOAD})`,
    hops: 'network hops of the job: 3 (source -> map -> sum -> sink, the default) or 1 (source -> map + sink)',
    'buffer-records': 'taskmanager.network.buffer-records (default: the engine default, 512)',
    credits: 'taskmanager.network.credits-per-channel (default: the engine default, 16)',
    'checkpoint-dir': 'directory in which each run makes its checkpoint directory (default: the system temporary directory)',
    only: 'aligned, unaligned or aligned-debloated: run one variant (to profile it)',
  },

  async run(options): Promise<ScenarioResult> {
    const { log, runs } = options;
    if (options.records !== undefined) log('--records is not used: runs are timed (--seconds)');
    const settings: Settings = {
      parallelism: Math.max(1, intFlag(options, 'parallelism', DEFAULT_PARALLELISM, 0)),
      taskManagers: intFlag(options, 'task-managers', DEFAULT_TASK_MANAGERS, 0),
      intervalMs: intFlag(options, 'interval', DEFAULT_INTERVAL_MS, 0),
      seconds: numberFlag(options, 'seconds', DEFAULT_SECONDS),
      debloatTargetMs: numberFlag(options, 'debloat-target-ms', DEFAULT_DEBLOAT_TARGET_MS),
      warmupSeconds: options.flags['warmup-seconds'] === '0' ? 0 : numberFlag(options, 'warmup-seconds', DEFAULT_WARMUP_SECONDS),
      keys: Math.max(1, intFlag(options, 'keys', DEFAULT_KEYS, 0)),
      payload: intFlag(options, 'payload', DEFAULT_PAYLOAD, 0),
      sinkWaitMs: intFlag(options, 'sink-wait-ms', DEFAULT_SINK_WAIT_MS, 0),
      hops: intFlag(options, 'hops', 3, 1),
      bufferRecords: options.flags['buffer-records'] !== undefined ? intFlag(options, 'buffer-records', 512, 0) : undefined,
      credits: options.flags.credits !== undefined ? intFlag(options, 'credits', 16, 0) : undefined,
      checkpointParent: options.flags['checkpoint-dir'] ?? tmpdir(),
    };
    const only = options.flags.only;
    if (only !== undefined && !VARIANTS.includes(only as VariantId)) throw new Error(`--only must be one of ${VARIANTS.join(', ')}, got '${only}'`);
    const variants = only ? [only as VariantId] : VARIANTS;
    const both = variants.includes('aligned') && variants.includes('unaligned');
    const share = numberFlag(options, 'sink-share', DEFAULT_SINK_SHARE);
    if (settings.hops !== 1 && settings.hops !== 3) throw new Error(`--hops must be 1 or 3, got ${settings.hops}`);
    const shape = settings.hops === 1 ? 'DataGen -> rebalance -> map -> throttled sink' : 'DataGen -> rebalance -> map -> keyBy -> sum -> rebalance -> throttled sink';
    const where = settings.taskManagers > 0 ? `${settings.taskManagers} worker-thread TaskManagers` : 'one in-thread TaskManager';

    let capacity: number | null = null;
    let calibration: number[] = [];
    let sinkRate: number;
    if (options.flags['sink-rate'] !== undefined) {
      sinkRate = numberFlag(options, 'sink-rate', 1);
    } else {
      const rates: number[] = [];
      for (let i = 0; i < CALIBRATION_RUNS; i++) {
        rates.push(await calibrate(settings));
        log(`calibration ${i + 1}/${CALIBRATION_RUNS} (unthrottled sink, no checkpoints, parallelism ${settings.parallelism} on ${where}, ${CALIBRATION_SECONDS} s): ${fmtNumber(rates.at(-1)!)} records/s`);
      }
      capacity = max(rates);
      calibration = rates;
      sinkRate = Math.round(capacity * share);
      log(`calibration: the job moves ${fmtNumber(capacity)} records/s; the sink is throttled to ${fmtNumber(sinkRate)} records/s (${share} of it)`);
    }
    const perSubtask = sinkRate / settings.parallelism;

    const samples: RunSample[] = [];
    for (let run = 0; run < runs; run++) {
      for (const v of rotated(variants, run)) {
        const s = await measure(settings, v, run, perSubtask);
        samples.push(s);
        const e2e = s.checkpoints.map((c) => c.endToEndMs);
        log(
          `run ${run + 1}/${runs} ${v.padEnd(9)} ${fmtNumber(s.recordsPerSecond).padStart(9)} records/s at the sink (sources blocked ${(s.sourceBackpressure * 100).toFixed(0)}% of the time, load ${s.load.toFixed(1)}); ${s.checkpoints.length} checkpoints, ` +
            `end-to-end median ${fmtMs(median(e2e))} (${fmtMs(Math.min(...e2e))}..${fmtMs(max(e2e))}), persisted median ${fmtKb(median(s.checkpoints.map((c) => c.persistedBytes)))}` +
            (s.failed > 0 ? `, ${s.failed} failed` : '') +
            (s.inProgressAtEnd > 0 ? `, ${s.inProgressAtEnd} still in progress at the end` : ''),
        );
      }
    }

    const of = (v: VariantId) => samples.filter((s) => s.variant === v);
    const cps = (v: VariantId) => of(v).flatMap((s) => s.checkpoints);
    const pick = (v: VariantId, f: (c: CheckpointFigures) => number) => cps(v).map(f);
    const stats = new Map(
      variants.map((v) => [
        v,
        {
          rate: summarize(of(v).map((s) => s.recordsPerSecond)),
          e2e: summarize(pick(v, (c) => c.endToEndMs)),
          startDelay: summarize(pick(v, (c) => c.startDelayMaxMs)),
          alignment: summarize(pick(v, (c) => c.alignmentMaxMs)),
          persisted: summarize(pick(v, (c) => c.persistedBytes)),
          processed: summarize(pick(v, (c) => c.processedBytes)),
          state: summarize(pick(v, (c) => c.stateBytes)),
          perRun: median(of(v).map((s) => s.checkpoints.length)),
          sourceBackpressure: summarize(of(v).map((s) => s.sourceBackpressure)),
          load: summarize(of(v).map((s) => s.load)),
          failed: of(v).reduce((n, s) => n + s.failed, 0),
          allUnaligned: cps(v).every((c) => c.unaligned),
        },
      ]),
    );

    // Paired ratios: both sides from the same run, then the median over runs.
    const paired = (f: (s: RunSample) => number): Summary | undefined => {
      if (!both) return undefined;
      const ratios: number[] = [];
      for (let run = 0; run < runs; run++) {
        const u = samples.find((s) => s.run === run && s.variant === 'unaligned')!;
        const a = samples.find((s) => s.run === run && s.variant === 'aligned')!;
        ratios.push(f(u) / f(a));
      }
      return summarize(ratios);
    };
    const durationRatioRuns = paired((s) => median(s.checkpoints.map((c) => c.endToEndMs)));
    const throughputRatioRuns = paired((s) => s.recordsPerSecond);
    const durationRatio = both ? stats.get('unaligned')!.e2e.median / stats.get('aligned')!.e2e.median : NaN;
    const throughputRatio = both ? stats.get('unaligned')!.rate.median / stats.get('aligned')!.rate.median : NaN;

    const table: Table = {
      columns: [
        'variant',
        'checkpoints',
        'end-to-end (median)',
        'e2e range',
        'start delay (med)',
        'alignment (med)',
        'persisted in-flight / cp (med)',
        'persisted max',
        'processed during alignment (med)',
        'sink records/s (median)',
        'rec/s range',
        'sources blocked',
        'load',
        'vs aligned',
      ],
      rows: variants.map((v) => {
        const st = stats.get(v)!;
        return [
          v,
          `${cps(v).length} (${fmtNumber(st.perRun, 1)}/run)`,
          fmtMs(st.e2e.median),
          `${fmtMs(st.e2e.min)}..${fmtMs(st.e2e.max)}`,
          fmtMs(st.startDelay.median),
          fmtMs(st.alignment.median),
          fmtKb(st.persisted.median),
          fmtKb(st.persisted.max),
          fmtKb(st.processed.median),
          fmtNumber(st.rate.median),
          `${fmtNumber(st.rate.min)}..${fmtNumber(st.rate.max)}`,
          `${(st.sourceBackpressure.median * 100).toFixed(0)}%`,
          st.load.median.toFixed(1),
          v === 'unaligned' && both ? `e2e ${fmtRatio(durationRatio)}, rec/s ${fmtRatio(throughputRatio)}` : '-',
        ];
      }),
    };

    // Where the barrier spends its time: per vertex, medians over checkpoints of the slowest subtask.
    const vertexNames = [...new Set(samples.flatMap((s) => s.checkpoints.flatMap((c) => Object.keys(c.vertices))))];
    const perVertex: Table = {
      columns: ['variant', 'vertex', 'start delay (med)', 'start delay max', 'alignment (med)', 'alignment max', 'sync (med)', 'async (med)', 'async max', 'acked after (med)', 'acked max', 'persisted / cp (med)'],
      align: ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
      rows: variants.flatMap((v) =>
        vertexNames.map((name) => {
          const fig = cps(v).map((c) => c.vertices[name]!).filter((f) => f !== undefined);
          return [
            v,
            name,
            fmtMs(median(fig.map((f) => f.startDelayMs))),
            fmtMs(max(fig.map((f) => f.startDelayMs))),
            fmtMs(median(fig.map((f) => f.alignmentMs))),
            fmtMs(max(fig.map((f) => f.alignmentMs))),
            fmtMs(median(fig.map((f) => f.syncMs))),
            fmtMs(median(fig.map((f) => f.asyncMs))),
            fmtMs(max(fig.map((f) => f.asyncMs))),
            fmtMs(median(fig.map((f) => f.ackMs))),
            fmtMs(max(fig.map((f) => f.ackMs))),
            fmtKb(median(fig.map((f) => f.persistedBytes))),
          ];
        }),
      ),
    };

    const notes: string[] = [
      `job: ${shape}, parallelism ${settings.parallelism} on ${where}; exactly-once checkpoints every ${settings.intervalMs} ms into ${settings.checkpointParent}; the sink's ready() waits at most ${settings.sinkWaitMs > 0 ? `${settings.sinkWaitMs} ms` : 'everything owed'} at a time`,
      capacity !== null
        ? `sink throttled to ${fmtNumber(sinkRate)} records/s in all (${fmtNumber(perSubtask)} per subtask) = ${share} of the ${fmtNumber(capacity)} records/s the job moves with an unthrottled sink and no checkpoints (best of ${CALIBRATION_RUNS} calibration runs: ${calibration.map((r) => fmtNumber(r)).join(', ')})`
        : `sink throttled to ${fmtNumber(sinkRate)} records/s in all (${fmtNumber(perSubtask)} per subtask), set by --sink-rate`,
      `${runs} runs, every variant per run in rotating order; per job run: ${settings.warmupSeconds} s warm-up after the sink's first record, ${settings.seconds} s measured, then cancel`,
      `checkpoint figures: completed checkpoints triggered and completed inside the measured windows; start delay and alignment are the largest over the subtasks of a checkpoint; persisted = channel state (in-flight records) per checkpoint`,
      `an aligned checkpoint's duration is about the in-flight records / the sink's rate, an unaligned one's is not: compare invocations at the same --sink-rate`,
      `sources blocked = share of the window the source subtasks were blocked on full outputs (median over runs; near 100% means the sink sets the pace); load = the machine's 1-minute load average (median over runs, ${cpus().length} CPUs)`,
    ];
    for (const v of variants) {
      const st = stats.get(v)!;
      if (st.failed > 0) notes.push(`warning: ${st.failed} ${v} checkpoint(s) failed inside the measured windows`);
      if (cps(v).length === 0) notes.push(`warning: no ${v} checkpoint completed inside the measured windows: raise --seconds`);
    }
    if (both) {
      const u = stats.get('unaligned')!;
      if (!u.allUnaligned) notes.push('warning: some checkpoints of the unaligned variant did not run unaligned');
      const verdict = (ok: boolean, ratio: number) => (!Number.isFinite(ratio) ? 'no data' : ok ? 'met' : 'NOT met');
      notes.push(
        `goal end-to-end duration unaligned / aligned <= ${GOAL_DURATION_RATIO}x: ${fmtRatio(durationRatio)} (medians over all checkpoints: ${fmtMs(u.e2e.median)} / ${fmtMs(stats.get('aligned')!.e2e.median)}; median of per-run ratios ${fmtRatio(durationRatioRuns!.median)}, range ${fmtRatio(durationRatioRuns!.min)}..${fmtRatio(durationRatioRuns!.max)}): ${verdict(durationRatio <= GOAL_DURATION_RATIO, durationRatio)}`,
        `goal throughput unaligned / aligned >= ${GOAL_THROUGHPUT_RATIO}x: ${fmtRatio(throughputRatio)} (median of per-run ratios ${fmtRatio(throughputRatioRuns!.median)}, range ${fmtRatio(throughputRatioRuns!.min)}..${fmtRatio(throughputRatioRuns!.max)}): ${verdict(throughputRatio >= GOAL_THROUGHPUT_RATIO, throughputRatio)}`,
      );
    }
    if (variants.includes('aligned-debloated')) {
      const d = stats.get('aligned-debloated')!;
      const bound = 2 * settings.debloatTargetMs;
      notes.push(
        `buffer debloating (target ${fmtMs(settings.debloatTargetMs)}, on each of the job's ${settings.hops} network hop${settings.hops === 1 ? '' : 's'}): longest aligned checkpoint ${fmtMs(d.e2e.max)} (median ${fmtMs(d.e2e.median)}, alignment max ${fmtMs(d.alignment.max)})${stats.has('aligned') ? ` against ${fmtMs(stats.get('aligned')!.e2e.max)} without (median ${fmtMs(stats.get('aligned')!.e2e.median)})` : ''}; goal: none longer than twice the target plus its state write (this job's state is ${settings.hops === 1 ? 'its source positions' : 'a few keyed sums'}: checked against ${fmtMs(bound)}): ${Number.isFinite(d.e2e.max) ? (d.e2e.max <= bound ? 'met' : 'NOT met') : 'no data'}`,
      );
    }

    return {
      table,
      extraTables: [{ title: 'Where the barrier spends its time (per vertex: the slowest subtask; medians over checkpoints)', table: perVertex }],
      notes,
      data: {
        settings: { ...settings, sinkShare: share, sinkRate, sinkRatePerSubtask: perSubtask, capacity, calibration, job: JOB, variants },
        summary: Object.fromEntries([...stats].map(([v, st]) => [v, st])),
        ratios: {
          endToEnd: durationRatio,
          endToEndPerRun: durationRatioRuns ?? null,
          throughput: throughputRatio,
          throughputPerRun: throughputRatioRuns ?? null,
          goals: { endToEnd: GOAL_DURATION_RATIO, throughput: GOAL_THROUGHPUT_RATIO },
        },
        samples,
      },
    };
  },
};
