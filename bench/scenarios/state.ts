// Scenario `state`: incremental checkpoints on the lmdb backend against full ones and none.
//
//   DataGen {key, v: 1} -> keyBy(key) -> sum('v') -> a discarding sink on the lmdb backend, K keys
//   (--keys, default 1M). The first K records carry keys 0..K-1 (every key is in the state
//   afterwards), then the job runs unthrottled over a hot set of 1% of the keys that moves on by
//   1% of the keys every --hot-records records (default 1M): about 1% of the keys change per
//   checkpoint interval of 1 s. Variants, in rotating order each run: 'off' (no checkpoints),
//   'full' (checkpoints every 1 s, full) and 'incremental' (execution.checkpointing.incremental).
//   Reported: records/s while records flow after the prefill (the sink's rate between marks),
//   and per periodic checkpoint after the prefill the bytes it wrote (checkpointed_size) against
//   the full state size (state_size).
//
// Everything runs on the in-thread TaskManager; checkpoints and the lmdb stores go to fresh
// temporary directories per run, removed afterwards.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { createJobMaster, defineJob, type JobDefinition } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { configFlag, fmtNumber, fmtRatio, intFlag, listFlag, max, median, min, settle, type Scenario, type ScenarioOptions, type ScenarioResult } from '../harness.ts';
import type { KeyedRecord } from '../jobs/keyed-state-bench.ts';
import type { Sink, SinkWriter } from '../../src/index.ts';

const DEFAULT_KEYS = 1_000_000;
const DEFAULT_HOT_RECORDS = 1_000_000;
const MARK_EVERY = 65_536;
type Variant = 'off' | 'full' | 'incremental';
const VARIANTS: readonly Variant[] = ['off', 'full', 'incremental'];

/** Keys 0..K-1 first, then a hot 1% of the keys (hashed within it) that moves on every `hotRecords` records. */
function hotKeyAt(i: number, keys: number, hotRecords: number): number {
  if (i < keys) return i;
  const hot = Math.max(1, Math.floor(keys / 100));
  const window = Math.floor((i - keys) / hotRecords);
  let x = Math.imul(i, 0x9e3779b1) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  return (window * hot + (x % hot)) % keys;
}

/**
 * What the sink tells the benchmark: every MARK_EVERY-th record's time, the first mark after the
 * prefill (the hot phase's start) and the last, and when the prefill was done (Date.now, as
 * checkpoint stats' trigger timestamps).
 */
class HotPhaseProbe {
  count = 0;
  prefilledAt = 0;
  hotStartAt = 0;
  hotStartCount = 0;
  lastMarkAt = 0;
  lastMarkCount = 0;
  /** Called once, at the hot phase's first mark (--profile starts the CPU profiler there). */
  onHotStart: (() => void) | undefined;
  constructor(readonly prefill: number) {}

  /** Records per second in the hot phase (after the prefill), between its first and last marks. */
  get hotRate(): number {
    return (this.lastMarkCount - this.hotStartCount) / ((this.lastMarkAt - this.hotStartAt) / 1000);
  }
}

class HotPhaseSink implements Sink<KeyedRecord> {
  constructor(readonly probe: HotPhaseProbe) {}

  createWriter(ctx: { attemptNumber: number }): SinkWriter<KeyedRecord> {
    if (ctx.attemptNumber > 0) throw new Error('the state bench runs without failures');
    const p = this.probe;
    return {
      write: () => {
        const n = ++p.count;
        if (n === p.prefill) p.prefilledAt = Date.now();
        if ((n & (MARK_EVERY - 1)) !== 0 || n <= p.prefill) return;
        const now = performance.now();
        if (p.hotStartAt === 0) {
          p.hotStartAt = now;
          p.hotStartCount = n;
          p.onHotStart?.();
        }
        p.lastMarkAt = now;
        p.lastMarkCount = n;
      },
    };
  }
}

function job(keys: number, records: number, hotRecords: number, probe: HotPhaseProbe): JobDefinition {
  return defineJob((env) => {
    env
      .fromSource(DataGen.of((i): KeyedRecord => ({ key: hotKeyAt(i, keys, hotRecords), v: 1 }), { count: records }), { name: 'Source: gen', uid: 'source' })
      .keyBy((r) => r.key)
      .sum('v', { name: 'Sum', uid: 'sum' })
      .sinkTo(new HotPhaseSink(probe), { name: 'Sink: probe', uid: 'sink' });
  });
}

/** The job's JobMaster on `backend`, its lmdb store under `dir`, with the variant's configuration. */
function startJob(backend: 'lmdb' | 'heap', dir: string, definition: JobDefinition, config: Record<string, string | number | boolean>) {
  return createJobMaster({ job: definition, config: { 'state.backend.type': backend, 'state.backend.lmdb.localdir': join(dir, 'local'), ...config } });
}

interface Sample {
  readonly variant: Variant;
  readonly flowingRecordsPerSecond: number;
  /** Periodic checkpoints triggered after the prefill: bytes written and full size. */
  readonly checkpoints: ReadonlyArray<{ readonly checkpointed: number; readonly full: number }>;
}

async function runOnce(backend: 'lmdb' | 'heap', variant: Variant, keys: number, records: number, hotRecords: number, profileDir?: string, maxDeltas?: number, extra: Record<string, string> = {}): Promise<Sample> {
  await settle();
  const probe = new HotPhaseProbe(keys);
  const profiler = profileDir === undefined ? undefined : new Session();
  if (profiler !== undefined) {
    profiler.connect();
    probe.onHotStart = () => {
      profiler.post('Profiler.enable');
      profiler.post('Profiler.start');
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-state-'));
  try {
    const master = await startJob(backend, dir, job(keys, records, hotRecords, probe), {
      ...(variant === 'off' ? {} : { 'execution.checkpointing.interval': '1 s', 'execution.checkpointing.dir': join(dir, 'checkpoints') }),
      ...(variant === 'incremental' ? { 'execution.checkpointing.incremental': true, ...(maxDeltas !== undefined ? { 'execution.checkpointing.incremental.max-deltas': maxDeltas } : {}) } : {}),
      ...extra,
    });
    const result = await master.run();
    if (profiler !== undefined && probe.hotStartAt > 0) {
      const profile = await new Promise<unknown>((resolve, reject) => profiler.post('Profiler.stop', (e, r) => (e ? reject(e) : resolve(r.profile))));
      mkdirSync(profileDir!, { recursive: true });
      writeFileSync(join(profileDir!, `state-${backend}-${variant}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
      profiler.disconnect();
    }
    if (result.status !== 'FINISHED') throw new Error(`the ${variant} job ended ${result.status}: ${result.error?.message ?? 'no error'}`);
    const completed = master.checkpoints.stats.history().filter((s) => s.status === 'COMPLETED');
    // After the prefill (the state holds every key), and not the final one at the end of input.
    const measured = completed.slice(0, -1).filter((s) => probe.prefilledAt > 0 && s.triggerTimestamp >= probe.prefilledAt);
    return {
      variant,
      // The hot phase's rate (the prefill is loading, not the workload): what checkpoints cost.
      flowingRecordsPerSecond: probe.hotRate,
      checkpoints: measured.map((s) => ({ checkpointed: s.checkpointedSize, full: s.stateSize })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Phases of the `--alternate` run: a warm-up, then without and with checkpoints in turn. */
const PHASE_MS = 5_000;
const WARM_UP_MS = 3_000;

interface Phase {
  readonly checkpoints: boolean;
  readonly recordsPerSecond: number;
  readonly triggered: number;
}

/**
 * `--alternate`: one job with incremental checkpoints whose hot phase alternates between phases
 * without checkpoints and phases with one every second (triggered by the bench, as the periodic
 * trigger would), so both rates come from the same job, store, cache and heap. The whole state
 * is written once first (the chain's full base), in the warm-up. Separate jobs per
 * variant differ by more than the checkpoints cost: the `off` job alone ranged 135k-189k records/s
 * between runs on 2 shared vCPUs.
 */
async function runAlternating(backend: 'lmdb' | 'heap', keys: number, records: number, hotRecords: number, extra: Record<string, string>): Promise<Phase[]> {
  await settle();
  const probe = new HotPhaseProbe(keys);
  const dir = mkdtempSync(join(tmpdir(), 'weir-bench-state-'));
  try {
    const master = await startJob(backend, dir, job(keys, records, hotRecords, probe), {
      // Checkpoints only when the bench asks: the periodic trigger is an hour away.
      'execution.checkpointing.interval': '1 h',
      'execution.checkpointing.dir': join(dir, 'checkpoints'),
      'execution.checkpointing.incremental': true,
      ...extra,
    });
    let stopped = false;
    const running = master.run().finally(() => (stopped = true));
    // The input's end, not the job's: after it the job only waits for its final checkpoint.
    const ended = () => stopped || probe.count >= records;
    while (!ended() && probe.prefilledAt === 0) await sleep(50);
    // The first checkpoint writes the whole state (a full base): in the warm-up, so that the
    // phases with checkpoints see what a running job sees, deltas on a chain.
    if (!ended()) await master.triggerCheckpoint();
    await sleep(WARM_UP_MS);
    const phases: Phase[] = [];
    for (let checkpoints = false; !ended(); checkpoints = !checkpoints) {
      const count = probe.count;
      const start = performance.now();
      let triggered = 0;
      while (!ended() && performance.now() - start < PHASE_MS) {
        if (!checkpoints) {
          await sleep(Math.min(100, PHASE_MS - (performance.now() - start)));
          continue;
        }
        const next = performance.now() + 1000;
        await master.triggerCheckpoint().catch((e: unknown) => {
          if (!ended()) throw e;
        });
        triggered++;
        await sleep(next - performance.now());
      }
      // A phase cut short by the end of the input is not counted.
      if (!ended()) phases.push({ checkpoints, recordsPerSecond: (probe.count - count) / ((performance.now() - start) / 1000), triggered });
    }
    const result = await running;
    if (result.status !== 'FINISHED') throw new Error(`the alternating job ended ${result.status}: ${result.error?.message ?? 'no error'}`);
    return phases;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Each phase with checkpoints against the mean of the phases without on either side of it. */
function bracketedRatios(phases: readonly Phase[]): number[] {
  const ratios: number[] = [];
  for (let i = 1; i + 1 < phases.length; i++) {
    if (!phases[i]!.checkpoints) continue;
    ratios.push(phases[i]!.recordsPerSecond / ((phases[i - 1]!.recordsPerSecond + phases[i + 1]!.recordsPerSecond) / 2));
  }
  return ratios;
}

async function alternate(options: ScenarioOptions, backend: 'lmdb' | 'heap', keys: number, records: number, hotRecords: number): Promise<ScenarioResult> {
  const rows: string[][] = [];
  const all: number[] = [];
  const runs: Phase[][] = [];
  for (let run = 0; run < options.runs; run++) {
    const phases = await runAlternating(backend, keys, records, hotRecords, configFlag(options.flags.set));
    runs.push(phases);
    const ratios = bracketedRatios(phases);
    all.push(...ratios);
    options.log(`run ${run + 1}/${options.runs}: ${phases.map((p) => `${p.checkpoints ? `on(${p.triggered})` : 'off'} ${fmtNumber(p.recordsPerSecond)}`).join(', ')}`);
    rows.push([String(run + 1), String(phases.length), phases.filter((p) => !p.checkpoints).map((p) => fmtNumber(p.recordsPerSecond)).join(' '), phases.filter((p) => p.checkpoints).map((p) => fmtNumber(p.recordsPerSecond)).join(' '), ratios.map((r) => fmtRatio(r)).join(' ')]);
  }
  if (all.length === 0) throw new Error(`no phase with checkpoints had phases without on both sides: give the hot phase more records (--records, now ${fmtNumber(records)})`);
  return {
    table: { columns: ['run', 'phases', 'rec/s without checkpoints', 'rec/s with incremental checkpoints every 1 s', 'with / without (bracketing phases)'], rows },
    notes: [
      `${fmtNumber(keys)} keys on ${backend}, then ${fmtNumber(records - keys)} records over a hot 1% of the keys moving every ${fmtNumber(hotRecords)} records; one job per run, phases of ${PHASE_MS / 1000} s after a ${WARM_UP_MS / 1000} s warm-up.`,
      `incremental checkpoints vs none, within one job: median ${fmtRatio(median(all))} over ${all.length} phases (range ${fmtRatio(min(all))}..${fmtRatio(max(all))}; goal 0.95x).`,
    ],
    data: { backend, keys, records, hotRecords, alternating: runs },
  };
}

export const state: Scenario = {
  name: 'state',
  description: 'lmdb (or heap) backend: incremental checkpoints against full ones and none, ~1% of keys changed per 1 s interval (bytes per checkpoint, throughput)',
  flags: { '--backend lmdb|heap': 'the state backend (default lmdb)', '--max-deltas N': 'execution.checkpointing.incremental.max-deltas of the incremental variant (default: the config default)', '--profile DIR': 'a CPU profile of each run\'s hot phase into DIR (bench/profile-summary.ts reads them)', '--variants off,full,incremental': 'which to run (default all)', '--keys N': `keys in the state (default ${DEFAULT_KEYS})`, '--hot-records N': `records per position of the hot 1% of keys (default ${DEFAULT_HOT_RECORDS})`, '--set key=value,...': 'configuration keys given to every job (e.g. state.backend.lmdb.snapshot-thread=false)', '--alternate': 'instead of a job per variant: one job per run whose hot phase alternates phases without checkpoints and with incremental ones every 1 s' },
  defaultRuns: 2,
  async run(options: ScenarioOptions): Promise<ScenarioResult> {
    const keys = intFlag(options, 'keys', DEFAULT_KEYS);
    const backend = options.flags.backend ?? 'lmdb';
    if (backend !== 'lmdb' && backend !== 'heap') throw new Error(`--backend must be lmdb or heap, got '${backend}'`);
    const hotRecords = intFlag(options, 'hot-records', DEFAULT_HOT_RECORDS);
    const records = options.records ?? keys + 8_000_000;
    // Alternating phases need a longer hot phase: a dozen phases at ~150k records/s on 10M keys.
    if (options.flags.alternate !== undefined) return alternate(options, backend, keys, options.records ?? keys + 20_000_000, hotRecords);
    const variants = listFlag(options, 'variants', VARIANTS);
    const samples: Sample[] = [];
    for (let run = 0; run < options.runs; run++) {
      for (let k = 0; k < variants.length; k++) {
        const variant = variants[(k + run) % variants.length]!;
        const s = await runOnce(backend, variant, keys, records, hotRecords, options.flags.profile, options.flags['max-deltas'] === undefined ? undefined : intFlag(options, 'max-deltas', 10), configFlag(options.flags.set));
        samples.push(s);
        const c = s.checkpoints;
        options.log(
          `run ${run + 1}/${options.runs} ${variant.padEnd(11)} ${fmtNumber(s.flowingRecordsPerSecond).padStart(10)} records/s` +
            (c.length > 0 ? `  ${c.length} checkpoints, median written ${fmtNumber(median(c.map((x) => x.checkpointed)))} B of ${fmtNumber(median(c.map((x) => x.full)))} B` : ''),
        );
      }
    }
    const of = (v: Variant) => samples.filter((s) => s.variant === v);
    const rate = (v: Variant) => median(of(v).map((s) => s.flowingRecordsPerSecond));
    const cps = (v: Variant) => of(v).flatMap((s) => s.checkpoints);
    const rows = variants.map((v) => {
      const c = cps(v);
      const written = c.length ? median(c.map((x) => x.checkpointed)) : NaN;
      const mean = c.length ? c.reduce((n, x) => n + x.checkpointed, 0) / c.length : NaN;
      const full = c.length ? median(c.map((x) => x.full)) : NaN;
      const rates = of(v).map((s) => s.flowingRecordsPerSecond);
      const dash = (n: number) => (Number.isFinite(n) ? fmtNumber(n) : '-');
      return [v, dash(min(rates)), dash(rate(v)), fmtRatio(rate(v) / rate('off')), String(c.length), dash(written), dash(mean), dash(full), Number.isFinite(mean) ? `${((100 * mean) / full).toFixed(2)}%` : '-'];
    });
    return {
      table: { columns: ['variant', 'min rec/s', 'median rec/s', 'vs off', 'checkpoints', 'median written B', 'mean written B', 'full state B', 'mean/full'], rows },
      notes: [
        `${fmtNumber(keys)} keys on ${backend}, then ${fmtNumber(records - keys)} records over a hot 1% of the keys moving every ${fmtNumber(hotRecords)} records; checkpoints every 1 s.`,
        `incremental vs off: ${fmtRatio(rate('incremental') / rate('off'))} (goal 0.95x); full vs off: ${fmtRatio(rate('full') / rate('off'))}.`,
      ],
      data: { backend, keys, records, hotRecords, samples },
    };
  },
};
