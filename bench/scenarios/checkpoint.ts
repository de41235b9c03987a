// Scenario `checkpoint`: what exactly-once checkpoints cost a job with a large keyed state.
//
//   throughput  DataGen {key: i % K, v: 1} -> keyBy(key) -> sum('v') -> a discarding sink, K = 1M
//               keys, N records (default 10M), with checkpoints every 1 s ('on') and without
//               ('off'); both variants in every run, in rotating order. Reported: records/s over
//               the whole job (executeJob() to FINISHED, so the 'on' side pays for the final
//               checkpoint too) and while records flow (the sink's records/s between its
//               65,536th and last record), completed checkpoints, state size, sync/async times.
//   latency     The longest synchronous pause of a checkpoint (max syncMs of every subtask over
//               the measured checkpoints) and the latency of records (creation in the source ->
//               the sink) at K = 1M and 4M keys. The first K records carry keys 0..K-1 as fast
//               as the job goes (prefill: every key is in the state afterwards); then keys are
//               pseudo-random and the source is rate-limited to --load (default 0.6) of the
//               capacity measured in a calibration run (checkpointing on, no limit), so that
//               latency is not just queueing. The job runs until at least 3 checkpoints triggered
//               after the sink saw the whole prefill have completed (and at least --seconds), then
//               is cancelled; those checkpoints are the measured ones. Records are split into those
//               arriving while any checkpoint was in progress (its trigger to its end) and the others.
//               Latency includes batching: records leave a task in buffers of
//               taskmanager.network.buffer-records (512) or when the task runs idle.
//
// Everything runs on the in-thread TaskManager (one thread for source, sum, sink, the
// asynchronous snapshot writer and the JobMaster). Checkpoints go to a fresh temporary directory
// per run, removed afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJobMaster, type JobMaster, type JobResult } from '../../src/index.ts';
import type { CheckpointStats } from '../../src/coordinator/checkpoint-stats.ts';
import {
  intFlag,
  cpuMs,
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
import { epochNow, keyedSumJob, Probe } from '../jobs/keyed-state-bench.ts';

const DEFAULT_RECORDS = 10_000_000;
const DEFAULT_KEYS = 1_000_000;
const DEFAULT_LATENCY_KEYS = [1_000_000, 4_000_000];
const DEFAULT_LOAD = 0.6;
const DEFAULT_SECONDS = 8;
/** The latency part measures at least this many checkpoints after the prefill (and at least --seconds). */
const MEASURED_CHECKPOINTS = 3;
const MAX_LATENCY_SECONDS = 90;
const CALIBRATION_SECONDS = 4;
const GOAL_RATIO = 0.9;
const GOAL_PAUSE_MS = 5;
/** "Not growing with state": the 4M-key median sync pause at most this much above the 1M-key one. */
const PAUSE_GROWTH_TOLERANCE_MS = 1;
const MARK_EVERY = 65_536;

// ---- common ----


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

/** --incremental: the 'on' side takes incremental checkpoints (the heap backend's deltas of the keys changed). */
let incremental = false;

function checkpointConfig(dir: string): Record<string, unknown> {
  return { 'execution.checkpointing.interval': '1 s', 'execution.checkpointing.dir': dir, 'execution.checkpointing.mode': 'exactly-once', ...(incremental ? { 'execution.checkpointing.incremental': true } : {}) };
}

/** Sync/async/state figures of some checkpoints, each checkpoint taken at its slowest subtask. */
interface CheckpointFigures {
  readonly completed: number;
  readonly stateBytes: number;
  readonly syncMaxMs: number;
  readonly syncMs: number[];
  readonly asyncMs: number[];
  readonly alignmentMaxMs: number;
  readonly durationMs: number[];
}

function figuresOf(stats: readonly CheckpointStats[]): CheckpointFigures {
  return {
    completed: stats.length,
    stateBytes: max(stats.map((s) => s.stateSize)),
    syncMaxMs: max(stats.flatMap((s) => s.subtasks.map((t) => t.syncMs))),
    syncMs: stats.map((s) => max(s.subtasks.map((t) => t.syncMs))),
    asyncMs: stats.map((s) => max(s.subtasks.map((t) => t.asyncMs))),
    alignmentMaxMs: max(stats.flatMap((s) => s.subtasks.map((t) => t.alignmentMs))),
    durationMs: stats.map((s) => s.endToEndDuration),
  };
}

const fmtMb = (bytes: number) => (Number.isFinite(bytes) ? (bytes / (1024 * 1024)).toFixed(1) : '-');

// ---- throughput ----

interface ThroughputSample {
  readonly run: number;
  readonly variant: 'off' | 'on';
  readonly records: number;
  readonly wallMs: number;
  readonly recordsPerSecond: number;
  /** The sink's rate between its MARK_EVERY-th and its last marked record. */
  readonly flowingRecordsPerSecond: number;
  /** CPU time of the whole process during the run (less sensitive than wall time to other load on the machine). */
  readonly cpuMs: number;
  readonly checkpoints: CheckpointFigures | null;
  /** The final checkpoint at the end of input, when checkpointing (it may overlap a periodic one). */
  readonly finalCheckpoint: { syncMaxMs: number; asyncMaxMs: number; concurrent: boolean } | null;
}

async function runThroughput(variant: 'off' | 'on', run: number, keys: number, records: number): Promise<ThroughputSample> {
  await settle();
  const probe = new Probe({ prefill: keys, markEvery: MARK_EVERY });
  const dir = variant === 'on' ? mkdtempSync(join(tmpdir(), 'weir-bench-ckpt-')) : undefined;
  try {
    const start = performance.now();
    const cpu0 = cpuMs();
    const master = await createJobMaster({
      job: keyedSumJob({ keys, records, shape: 'sum' }, probe),
      config: dir ? checkpointConfig(dir) : {},
    });
    const result = await master.run();
    const wallMs = performance.now() - start;
    const cpu = cpuMs() - cpu0;
    if (result.status !== 'FINISHED') throw new Error(`the ${variant} job ended ${result.status}: ${result.error?.message ?? 'no error'}`);
    if (probe.count !== records) throw new Error(`the sink counted ${probe.count} records, expected ${records}`);
    const completed = master.checkpoints.stats.history().filter((s) => s.status === 'COMPLETED');
    // The last one is the final checkpoint, triggered when every task had reached the end of its input.
    const final = completed.at(-1);
    const periodic = completed.slice(0, -1);
    return {
      run,
      variant,
      records,
      wallMs,
      recordsPerSecond: records / (wallMs / 1000),
      flowingRecordsPerSecond: (probe.lastMarkCount - probe.firstMarkCount) / ((probe.lastMarkAt - probe.firstMarkAt) / 1000),
      cpuMs: cpu,
      checkpoints: variant === 'on' ? figuresOf(periodic) : null,
      finalCheckpoint: final
        ? {
            syncMaxMs: max(final.subtasks.map((t) => t.syncMs)),
            asyncMaxMs: max(final.subtasks.map((t) => t.asyncMs)),
            concurrent: completed.some((s) => s !== final && s.triggerTimestamp + s.endToEndDuration > final.triggerTimestamp),
          }
        : null,
    };
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

// ---- latency ----

interface LatencyStats {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** The longest time between two consecutive records at the sink. */
  readonly longestGapMs: number;
}

interface LatencySample {
  readonly run: number;
  readonly keys: number;
  readonly ratePerSecond: number;
  readonly achievedPerSecond: number;
  readonly checkpoints: CheckpointFigures;
  readonly during: LatencyStats;
  readonly outside: LatencyStats;
  /** Share of the measured records that arrived while a checkpoint was in progress. */
  readonly duringShare: number;
}

function percentile(sorted: Float32Array, q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function latencyStats(latencies: Float32Array, longestGapMs: number): LatencyStats {
  const sorted = latencies.sort();
  return { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.length ? sorted[sorted.length - 1]! : NaN, longestGapMs };
}

/**
 * Runs the unbounded latency job: the prefill, then rate-limited records until `enough` says so
 * (checked every 50 ms), then cancels it. Returns the master (for its checkpoint statistics).
 */
async function runLatencyJob(
  keys: number,
  ratePerSecond: number,
  probe: Probe,
  dir: string,
  enough: (master: JobMaster, secondsSincePrefill: number) => boolean,
): Promise<JobMaster> {
  const master = await createJobMaster({ job: keyedSumJob({ keys, shape: 'latency', ratePerSecond }, probe), config: checkpointConfig(dir) });
  let ended: JobResult | undefined;
  const done = master.run().then((r) => (ended = r));
  let prefilledAt = 0;
  for (;;) {
    await new Promise((r) => setTimeout(r, 50));
    if (ended) throw new Error(`the latency job ended ${ended.status}: ${ended.error?.message ?? 'no error'}`);
    if (probe.prefilledAt === 0) continue;
    if (prefilledAt === 0) prefilledAt = performance.now();
    if (probe.recorded >= probe.latencies!.length || enough(master, (performance.now() - prefilledAt) / 1000)) break;
  }
  await master.cancel();
  await done;
  return master;
}

async function runLatency(run: number, keys: number, ratePerSecond: number, seconds: number): Promise<LatencySample> {
  await settle();
  const probe = new Probe({ prefill: keys, latencyCapacity: Math.ceil(ratePerSecond * MAX_LATENCY_SECONDS) });
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-ckpt-'));
  // Date.now() (checkpoint timestamps) and performance.timeOrigin + performance.now() (record times) side by side.
  const clockOffset = Date.now() - epochNow();
  try {
    // Measured checkpoints: triggered once every key was in the state, and completed.
    const measured = (m: JobMaster) => m.checkpoints.stats.history().filter((s) => s.status === 'COMPLETED' && s.triggerTimestamp >= probe.prefilledAt);
    const master = await runLatencyJob(keys, ratePerSecond, probe, dir, (m, since) => since >= seconds && measured(m).length >= MEASURED_CHECKPOINTS);
    const inWindow = measured(master);
    if (inWindow.length === 0) throw new Error(`no checkpoint completed within ${MAX_LATENCY_SECONDS} s after the prefill of ${fmtNumber(keys)} keys`);
    // Any checkpoint in progress counts for the split: also one triggered during the prefill, and
    // the one the cancellation aborted.
    const intervals = master.checkpoints.stats
      .history()
      .filter((s) => s.status !== 'IN_PROGRESS')
      .map((s) => [s.triggerTimestamp - clockOffset, s.triggerTimestamp + s.endToEndDuration - clockOffset] as const)
      .sort((a, b) => a[0] - b[0]);
    const arrivals = probe.arrivals!;
    const latencies = probe.latencies!;
    const during = new Float32Array(probe.recorded);
    const outside = new Float32Array(probe.recorded);
    let nDuring = 0;
    let nOutside = 0;
    let gapDuring = 0;
    let gapOutside = 0;
    for (let r = 0; r < probe.recorded; r++) {
      const at = arrivals[r]!;
      let inCheckpoint = false;
      for (const [from, to] of intervals) {
        if (from > at) break;
        if (at <= to) {
          inCheckpoint = true;
          break;
        }
      }
      const gap = r > 0 ? at - arrivals[r - 1]! : 0;
      if (inCheckpoint) {
        during[nDuring++] = latencies[r]!;
        if (gap > gapDuring) gapDuring = gap;
      } else {
        outside[nOutside++] = latencies[r]!;
        if (gap > gapOutside) gapOutside = gap;
      }
    }
    return {
      run,
      keys,
      ratePerSecond,
      achievedPerSecond: (probe.recorded - 1) / ((arrivals[probe.recorded - 1]! - arrivals[0]!) / 1000),
      checkpoints: figuresOf(inWindow),
      during: latencyStats(during.subarray(0, nDuring), gapDuring),
      outside: latencyStats(outside.subarray(0, nOutside), gapOutside),
      duringShare: nDuring / probe.recorded,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Records/s the latency job sustains after the prefill with checkpointing on and no rate limit. */
async function calibrate(keys: number, seconds: number): Promise<number> {
  await settle();
  const probe = new Probe({ prefill: keys, latencyCapacity: 4_000_000 * seconds });
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-ckpt-'));
  try {
    await runLatencyJob(keys, Infinity, probe, dir, (_, since) => since >= seconds);
    const a = probe.arrivals!;
    return (probe.recorded - 1) / ((a[probe.recorded - 1]! - a[0]!) / 1000);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- the scenario ----

export const checkpoint: Scenario = {
  name: 'checkpoint',
  description: `cost of exactly-once checkpoints every 1 s on 1M keys (records/s on vs off), longest sync pause and record latency during checkpoints at 1M and 4M keys`,
  flags: {
    only: 'throughput or latency (default both)',
    incremental: "'on' takes incremental checkpoints (execution.checkpointing.incremental; default off)",
    keys: `keys of the throughput part (default ${fmtNumber(DEFAULT_KEYS)}); --records sets its input (default ${fmtNumber(DEFAULT_RECORDS)})`,
    'latency-keys': `comma-separated key counts of the latency part (default ${DEFAULT_LATENCY_KEYS.join(',')})`,
    load: `latency part: source rate as a fraction of the calibrated capacity (default ${DEFAULT_LOAD})`,
    rate: 'latency part: source rate in records/s (skips the calibration)',
    seconds: `latency part: least seconds of rate-limited input after the prefill (default ${DEFAULT_SECONDS}; the run goes on until ${MEASURED_CHECKPOINTS} checkpoints completed)`,
    warmup: 'records of the unmeasured warm-up run of each throughput variant (default records/10, 0 to skip)',
  },

  async run(options): Promise<ScenarioResult> {
    const { log, runs } = options;
    const only = options.flags.only;
    incremental = options.flags.incremental !== undefined && options.flags.incremental !== 'false';
    const doThroughput = only === undefined || only === 'throughput';
    const doLatency = only === undefined || only === 'latency';
    if (!doThroughput && !doLatency) throw new Error(`--only must be throughput or latency, got '${only}'`);
    const records = options.records ?? DEFAULT_RECORDS;
    const keys = intFlag(options, 'keys', DEFAULT_KEYS);
    const warmup = intFlag(options, 'warmup', Math.floor(records / 10), 0);
    const latencyKeys = options.flags['latency-keys']?.split(',').map((s) => Number(s.replace(/_/g, ''))) ?? DEFAULT_LATENCY_KEYS;
    if (latencyKeys.some((k) => !Number.isInteger(k) || k < 1)) throw new Error(`--latency-keys must be whole numbers, got '${options.flags['latency-keys']}'`);
    const load = numberFlag(options, 'load', DEFAULT_LOAD);
    const fixedRate = options.flags.rate !== undefined ? numberFlag(options, 'rate', 1) : undefined;
    const seconds = numberFlag(options, 'seconds', DEFAULT_SECONDS);

    const notes: string[] = [];
    const extraTables: Array<{ title: string; table: Table }> = [];
    const data: Record<string, unknown> = {
      settings: { records, keys, warmup, latencyKeys, load, fixedRate: fixedRate ?? null, seconds, interval: '1 s', taskManagers: 0 },
    };
    let table: Table | undefined;

    // ---- a. throughput ----
    if (doThroughput) {
      if (warmup > 0) {
        log(`throughput warm-up: ${fmtNumber(warmup)} records per variant`);
        for (const v of ['off', 'on'] as const) await runThroughput(v, -1, keys, warmup);
      }
      const samples: ThroughputSample[] = [];
      for (let run = 0; run < runs; run++) {
        for (const v of rotated(['off', 'on'] as const, run)) {
          const s = await runThroughput(v, run, keys, records);
          samples.push(s);
          const cp = s.checkpoints;
          log(
            `run ${run + 1}/${runs} checkpointing ${v.padEnd(3)} ${fmtNumber(s.recordsPerSecond).padStart(10)} records/s (flowing ${fmtNumber(s.flowingRecordsPerSecond)})  ${fmtMs(s.wallMs)}` +
              (cp ? `  ${cp.completed} checkpoints, sync max ${cp.syncMaxMs.toFixed(2)} ms, async median ${fmtMs(median(cp.asyncMs))}` : '') +
              (s.finalCheckpoint ? `; final checkpoint sync ${fmtMs(s.finalCheckpoint.syncMaxMs)}${s.finalCheckpoint.concurrent ? ' (overlapped a periodic one)' : ''}` : ''),
          );
        }
      }
      const of = (v: 'off' | 'on') => samples.filter((s) => s.variant === v);
      const paired = (pick: (s: ThroughputSample) => number): Summary => {
        const ratios: number[] = [];
        for (let run = 0; run < runs; run++) {
          const on = samples.find((s) => s.run === run && s.variant === 'on')!;
          const off = samples.find((s) => s.run === run && s.variant === 'off')!;
          ratios.push(pick(on) / pick(off));
        }
        return summarize(ratios);
      };
      const wallRatio = paired((s) => s.recordsPerSecond);
      const flowingRatio = paired((s) => s.flowingRecordsPerSecond);
      // Records per CPU-second, on / off: what checkpointing costs in work, whatever else runs on the machine.
      const cpuRatio = paired((s) => s.records / s.cpuMs);
      const extraCpuPerCheckpoint: number[] = [];
      for (let run = 0; run < runs; run++) {
        const on = samples.find((s) => s.run === run && s.variant === 'on')!;
        const off = samples.find((s) => s.run === run && s.variant === 'off')!;
        // Every checkpoint of the run, the final one included (it is a full checkpoint too).
        extraCpuPerCheckpoint.push((on.cpuMs - off.cpuMs) / (on.checkpoints!.completed + 1));
      }
      const on = of('on');
      const cps = on.map((s) => s.checkpoints!);
      const row = (v: 'off' | 'on') => {
        const ss = of(v);
        const rate = summarize(ss.map((s) => s.recordsPerSecond));
        const flowing = summarize(ss.map((s) => s.flowingRecordsPerSecond));
        const c = v === 'on' ? cps : [];
        return [
          v === 'on' ? 'checkpointing every 1 s' : 'checkpointing off',
          fmtNumber(rate.median),
          `${fmtNumber(rate.min)}..${fmtNumber(rate.max)}`,
          fmtNumber(flowing.median),
          fmtNumber(median(ss.map((s) => (s.cpuMs * 1e6) / s.records))),
          v === 'on' ? fmtRatio(wallRatio.median) : '-',
          v === 'on' ? fmtRatio(flowingRatio.median) : '-',
          v === 'on' ? fmtRatio(cpuRatio.median) : '-',
          v === 'on' ? fmtNumber(median(c.map((x) => x.completed)), 1) : '-',
          v === 'on' ? fmtMb(max(c.map((x) => x.stateBytes))) : '-',
          v === 'on' ? median(c.flatMap((x) => x.syncMs)).toFixed(2) : '-',
          v === 'on' ? max(c.map((x) => x.syncMaxMs)).toFixed(2) : '-',
          v === 'on' ? fmtMs(median(c.flatMap((x) => x.asyncMs))) : '-',
          v === 'on' ? fmtMs(median(c.flatMap((x) => x.durationMs))) : '-',
        ];
      };
      table = {
        columns: ['variant', 'records/s (median)', 'range', 'flowing rec/s', 'CPU ns/rec', 'vs off', 'flowing vs off', 'rec/CPU-s vs off', 'checkpoints/run', 'state MB', 'sync ms (med)', 'sync ms (max)', 'async (med)', 'end-to-end (med)'],
        rows: [row('off'), row('on')],
      };
      const finals = on.map((s) => s.finalCheckpoint).filter((f) => f !== null);
      const verdict = (r: Summary) => `${fmtRatio(r.median)} median of per-run ratios (range ${fmtRatio(r.min)}..${fmtRatio(r.max)}), goal >= ${GOAL_RATIO}x: ${r.median >= GOAL_RATIO ? 'met' : 'NOT met'}`;
      notes.push(
        `throughput: ${fmtNumber(records)} records over ${fmtNumber(keys)} keys (key = i mod keys), keyBy -> sum -> discarding sink, in-thread TaskManager; ${runs} runs, both variants per run in rotating order`,
        `records/s = records / wall time from createJobMaster() to FINISHED (the 'on' side includes its final checkpoint at the end of input); flowing rec/s = the sink's rate from its ${fmtNumber(MARK_EVERY)}th to its last ${fmtNumber(MARK_EVERY)}-multiple record`,
        `checkpoint figures are of the periodic checkpoints (the final one apart), each at its slowest subtask; sync = synchronous part (max over subtasks), async = writing the state file`,
        `goal checkpointing on / off (whole job): ${verdict(wallRatio)}`,
        `goal checkpointing on / off (while records flow): ${verdict(flowingRatio)}`,
        `records per CPU-second on / off: ${fmtRatio(cpuRatio.median)} (range ${fmtRatio(cpuRatio.min)}..${fmtRatio(cpuRatio.max)}); extra CPU per completed checkpoint (final included): median ${fmtMs(median(extraCpuPerCheckpoint))} for ${fmtMb(max(cps.map((x) => x.stateBytes)))} MB of state; checkpoints completed every ${fmtMs(median(on.map((s) => s.wallMs / (s.checkpoints!.completed + 1))))} on average (interval 1 s, at most one in flight: a checkpoint whose writing takes longer than the interval delays the next)`,
      );
      if (finals.length > 0) {
        const overlapped = finals.filter((f) => f.concurrent).length;
        notes.push(
          `final checkpoint (end of input): sync median ${fmtMs(median(finals.map((f) => f.syncMaxMs)))}, max ${fmtMs(max(finals.map((f) => f.syncMaxMs)))}, async median ${fmtMs(median(finals.map((f) => f.asyncMaxMs)))}; it overlapped a periodic checkpoint still writing in ${overlapped} of ${finals.length} runs (then the table's synchronous snapshot copies every entry)`,
        );
      }
      data.throughput = {
        samples,
        summary: {
          off: { recordsPerSecond: summarize(of('off').map((s) => s.recordsPerSecond)), flowing: summarize(of('off').map((s) => s.flowingRecordsPerSecond)) },
          on: { recordsPerSecond: summarize(on.map((s) => s.recordsPerSecond)), flowing: summarize(on.map((s) => s.flowingRecordsPerSecond)) },
        },
        ratios: { wall: wallRatio, flowing: flowingRatio, recordsPerCpuSecond: cpuRatio, goal: GOAL_RATIO },
        extraCpuPerCheckpointMs: summarize(extraCpuPerCheckpoint),
      };
    }

    // ---- b. pause and latency ----
    if (doLatency) {
      const rates = new Map<number, { capacity: number | null; rate: number }>();
      for (const k of latencyKeys) {
        if (fixedRate !== undefined) {
          rates.set(k, { capacity: null, rate: fixedRate });
          continue;
        }
        log(`latency: calibrating the capacity at ${fmtNumber(k)} keys (checkpointing on, no rate limit)`);
        const capacity = await calibrate(k, CALIBRATION_SECONDS);
        rates.set(k, { capacity, rate: Math.round(capacity * load) });
        log(`latency: ${fmtNumber(k)} keys: capacity ${fmtNumber(capacity)} records/s, source limited to ${fmtNumber(capacity * load)} records/s`);
      }
      const samples: LatencySample[] = [];
      for (let run = 0; run < runs; run++) {
        for (const k of rotated(latencyKeys, run)) {
          const s = await runLatency(run, k, rates.get(k)!.rate, seconds);
          samples.push(s);
          log(
            `run ${run + 1}/${runs} ${fmtNumber(k).padStart(9)} keys: ${s.checkpoints.completed} checkpoints, sync max ${s.checkpoints.syncMaxMs.toFixed(2)} ms, async median ${fmtMs(median(s.checkpoints.asyncMs))}; latency during checkpoints p50 ${fmtMs(s.during.p50)} p99 ${fmtMs(s.during.p99)} max ${fmtMs(s.during.max)}, outside p50 ${fmtMs(s.outside.p50)} p99 ${fmtMs(s.outside.p99)} max ${fmtMs(s.outside.max)}`,
          );
        }
      }
      const byKeys = (k: number) => samples.filter((s) => s.keys === k);
      const medOf = (ss: LatencySample[], f: (s: LatencySample) => number) => median(ss.map(f));
      const pauseRows = latencyKeys.map((k) => {
        const ss = byKeys(k);
        const c = ss.map((s) => s.checkpoints);
        return [
          fmtNumber(k),
          fmtNumber(rates.get(k)!.rate),
          fmtNumber(medOf(ss, (s) => s.achievedPerSecond)),
          String(c.reduce((n, x) => n + x.completed, 0)),
          fmtMb(max(c.map((x) => x.stateBytes))),
          median(c.flatMap((x) => x.syncMs)).toFixed(2),
          max(c.map((x) => x.syncMaxMs)).toFixed(2),
          fmtMs(median(c.flatMap((x) => x.asyncMs))),
          fmtMs(median(c.flatMap((x) => x.durationMs))),
          `${(100 * medOf(ss, (s) => s.duringShare)).toFixed(0)}%`,
        ];
      });
      const latencyRows = latencyKeys.flatMap((k) => {
        const ss = byKeys(k);
        return (['during', 'outside'] as const).map((w) => [
          fmtNumber(k),
          w === 'during' ? 'checkpoint in progress' : 'no checkpoint',
          fmtNumber(ss.reduce((n, s) => n + s[w].count, 0)),
          fmtMs(medOf(ss, (s) => s[w].p50)),
          fmtMs(medOf(ss, (s) => s[w].p99)),
          fmtMs(max(ss.map((s) => s[w].max))),
          fmtMs(max(ss.map((s) => s[w].longestGapMs))),
        ]);
      });
      const pauseTable: Table = {
        columns: ['keys', 'source rec/s', 'achieved rec/s', 'checkpoints', 'state MB', 'sync ms (med)', 'sync ms (max)', 'async (med)', 'end-to-end (med)', 'records during'],
        rows: pauseRows,
      };
      const latencyTable: Table = {
        columns: ['keys', 'records arriving', 'records', 'p50 (median)', 'p99 (median)', 'max (all runs)', 'longest gap'],
        align: ['right', 'left', 'right', 'right', 'right', 'right', 'right'],
        rows: latencyRows,
      };
      if (table === undefined) table = pauseTable;
      else extraTables.push({ title: 'Synchronous pause of the measured checkpoints (after the prefill), per key count', table: pauseTable });
      extraTables.push({ title: 'Record latency, creation in the source -> the sink (medians over runs of the per-run percentiles)', table: latencyTable });

      const overall = max(samples.map((s) => s.checkpoints.syncMaxMs));
      const sorted = [...latencyKeys].sort((a, b) => a - b);
      const smallest = sorted[0]!;
      const largest = sorted.at(-1)!;
      const medSync = (k: number) => median(byKeys(k).flatMap((s) => s.checkpoints.syncMs));
      const growth = medSync(largest) - medSync(smallest);
      notes.push(
        `latency: per run, ${sorted.map((k) => fmtNumber(k)).join(' or ')} keys prefilled (keys 0..K-1 unthrottled), then pseudo-random keys at the source rate for at least ${seconds} s and ${MEASURED_CHECKPOINTS} completed checkpoints (${fixedRate !== undefined ? 'fixed by --rate' : `${load} of the capacity calibrated with checkpointing on: ${latencyKeys.map((k) => `${fmtNumber(k)} keys ${fmtNumber(rates.get(k)!.capacity ?? NaN)} rec/s`).join(', ')}`}); ${runs} runs, key counts in rotating order`,
        `latency = sink arrival - creation in the source (performance.timeOrigin + performance.now()); it includes batching in 512-record buffers and the task manager's 8 ms scheduling slices; 'longest gap' = longest time between two consecutive records at the sink`,
        `goal sync pause < ${GOAL_PAUSE_MS} ms: longest ${overall.toFixed(2)} ms over ${samples.reduce((n, s) => n + s.checkpoints.completed, 0)} measured checkpoints: ${overall < GOAL_PAUSE_MS ? 'met' : 'NOT met'}`,
        latencyKeys.length > 1
          ? `goal sync pause not growing with state: median ${medSync(smallest).toFixed(2)} ms at ${fmtNumber(smallest)} keys, ${medSync(largest).toFixed(2)} ms at ${fmtNumber(largest)} keys (criterion: at most +${PAUSE_GROWTH_TOLERANCE_MS} ms): ${growth <= PAUSE_GROWTH_TOLERANCE_MS ? 'met' : 'NOT met'}`
          : `sync pause growth: needs two key counts (--latency-keys)`,
      );
      data.latency = { rates: Object.fromEntries(rates), samples };
    }

    return { table: table!, extraTables, notes, data };
  },
};
