// Scenario `wordcount`: throughput of the engine's word count against a hand-written Node loop
// over the same words, and the speed-up from a second worker TaskManager.
//
//   loop  for i in 0..N-1: counts.set(w, (counts.get(w) ?? 0) + 1), w = new WordGenerator(seed).wordAt(i)
//   p1    the engine, parallelism 1, one TaskManager in this thread
//   p2    the engine, parallelism 2, two worker-thread TaskManagers
//   p2-declared  the same with the records' type declared (.returns(Types.struct(...)))
//
// Goals (issue 14): p1 >= 0.5x the loop; p2 >= 1.7x p1 counted from RUNNING (floor 1.5x), with
// whole-process CPU per record at p2 <= 1.3x p1's.
//
// Each run measures every variant once, in an order that rotates from run to run, so that a noisy
// neighbour on a shared machine hurts all of them alike; ratios are taken within a run and the
// median over runs is reported. Engine times are wall time from executeJob() to FINISHED, job
// startup included; the startup alone is measured with a tiny input, interleaved the same way.
//
// --breakdown adds p1 runs of cut-down pipelines (see bench/jobs/wordcount-bench.ts) whose
// differences show what each stage costs per record.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeJob } from '../../src/index.ts';
import { WordGenerator } from '../../src/connectors/datagen/index.ts';
import {
  intFlag,
  BENCH_DIR,
  cpuMs,
  fmtMs,
  fmtNumber,
  fmtRatio,
  median,
  rssSampler,
  settle,
  summarize,
  timed,
  type Scenario,
  type ScenarioOptions,
  type ScenarioResult,
  type Summary,
  type Table,
} from '../harness.ts';
import { userWork, type SinkReport } from '../jobs/wordcount-bench.ts';

const JOB = join(BENCH_DIR, 'jobs', 'wordcount-bench.ts');
// Large enough that every engine variant runs >= 2 s on the development machine (p1 does ~8M
// records/s), so that start-up, the JIT's first compilations in each worker and noise weigh
// little; a warning is printed when a run is shorter.
const DEFAULT_RECORDS = 20_000_000;
const MIN_ENGINE_RUN_MS = 2000;
const GOAL_P1_VS_LOOP = 0.5;
/** p2 against p1, both counted from RUNNING: the goal, and the floor below which parallelism does not pay. */
const GOAL_P2_VS_P1 = 1.7;
const FLOOR_P2_VS_P1 = 1.5;
/** Whole-process CPU per record at p2 against p1: at most this. */
const GOAL_P2_CPU_VS_P1 = 1.3;

type Pipeline = 'full' | 'literal' | 'hop' | 'chained';
type VariantId = 'loop' | 'p1' | 'p2' | 'p2-declared' | 'p1-literal' | 'p1-hop' | 'p1-chained';

interface Variant {
  readonly id: VariantId;
  readonly label: string;
  readonly run: (records: number, seed: number, verify?: boolean) => Promise<RunOutcome>;
}

interface RunOutcome {
  /** Records the variant counted: a check that it did all the work. */
  readonly records: number;
  /** Final count per word, when asked to verify. */
  readonly counts?: Map<string, number>;
  /** Engine variants: ms from the job's RUNNING status (TaskManagers up, tasks being deployed) to its end. */
  readonly runningMs?: number;
}

interface Sample {
  readonly run: number;
  readonly variant: VariantId;
  readonly records: number;
  readonly wallMs: number;
  readonly recordsPerSecond: number;
  /** CPU time of the whole process (all threads) during the run. */
  readonly cpuMs: number;
  readonly runningMs: number | null;
  readonly peakRssMb: number;
}

/** The baseline: the same words, counted in a Map by a plain loop. */
/** --map-work: rounds of userWork per record, in every variant (set once per scenario run). */
let mapWork = 0;
let loopWorkSink = 0;

export function handWrittenWordCount(records: number, seed: number, rounds = 0): Map<string, number> {
  const gen = new WordGenerator(seed);
  const counts = new Map<string, number>();
  for (let i = 0; i < records; i++) {
    const w = gen.wordAt(i);
    if (rounds > 0) loopWorkSink ^= userWork(w, rounds);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return counts;
}

async function runEngine(parallelism: number, taskManagers: number, pipeline: Pipeline, records: number, seed: number, verify: boolean, declared = false): Promise<RunOutcome> {
  const reportDir = mkdtempSync(join(tmpdir(), 'weir-bench-'));
  try {
    const args = ['--words', String(records), '--seed', String(seed), '--pipeline', pipeline, '--report-dir', reportDir, ...(verify ? ['--verify'] : []), ...(declared ? ['--declared'] : []), ...(mapWork > 0 ? ['--map-work', String(mapWork)] : [])];
    let runningSince = NaN;
    const result = await executeJob({
      job: JOB,
      args,
      config: { 'parallelism.default': parallelism },
      taskManagers,
      listener: {
        onStatus: (s) => {
          if (s === 'RUNNING' && Number.isNaN(runningSince)) runningSince = performance.now();
        },
      },
    });
    const end = performance.now();
    if (result.status !== 'FINISHED') throw new Error(`the benchmark job ended ${result.status}: ${result.error?.message ?? 'no error'}`);
    const reports = readdirSync(reportDir).map((f) => JSON.parse(readFileSync(join(reportDir, f), 'utf8')) as SinkReport);
    if (reports.length !== parallelism) throw new Error(`expected ${parallelism} sink reports, found ${reports.length}`);
    const counted = reports.reduce((n, r) => n + r.records, 0);
    let counts: Map<string, number> | undefined;
    if (verify) {
      counts = new Map();
      for (const r of reports) for (const [w, c] of Object.entries(r.counts ?? {})) counts.set(w, c);
    }
    return { records: counted, runningMs: end - runningSince, ...(counts ? { counts } : {}) };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

const LOOP: Variant = {
  id: 'loop',
  label: 'hand-written loop',
  run: async (records, seed) => {
    const counts = handWrittenWordCount(records, seed, mapWork);
    let n = 0;
    for (const c of counts.values()) n += c;
    return { records: n, counts };
  },
};
const P1: Variant = { id: 'p1', label: 'engine p1 (in-thread)', run: (n, seed, verify) => runEngine(1, 0, 'full', n, seed, verify ?? false) };
const P2: Variant = { id: 'p2', label: 'engine p2 (2 worker TMs)', run: (n, seed, verify) => runEngine(2, 2, 'full', n, seed, verify ?? false) };
/** The same with the records' type declared (.returns): a compiled codec instead of an inferred one. */
const P2_DECLARED: Variant = { id: 'p2-declared', label: 'engine p2, declared type', run: (n, seed, verify) => runEngine(2, 2, 'full', n, seed, verify ?? false, true) };
const MAIN_VARIANTS: readonly Variant[] = [LOOP, P1, P2, P2_DECLARED];

/** The cut-down pipelines of --breakdown, cheapest first; each adds one stage to the one before. */
const BREAKDOWN: ReadonlyArray<{ variant: Variant; stage: string }> = [
  {
    variant: { id: 'p1-chained', label: 'p1 source -> map -> sink', run: (n, seed) => runEngine(1, 0, 'chained', n, seed, false) },
    stage: 'datagen source, map to {word, count: 1}, counting sink, all chained (no network)',
  },
  {
    variant: { id: 'p1-hop', label: 'p1 ... -> rebalance -> sink', run: (n, seed) => runEngine(1, 0, 'hop', n, seed, false) },
    stage: '+ one local network channel between two tasks (record buffers, credits, input gate)',
  },
  {
    variant: { id: 'p1-literal', label: 'p1 ... keyBy -> reduce(literal)', run: (n, seed) => runEngine(1, 0, 'literal', n, seed, false) },
    stage: '+ keyBy and a rolling reduce on heap keyed state, the sum built as an object literal',
  },
  { variant: P1, stage: "+ sum('count') instead of the literal reduce: the field aggregation keeps its state in place and builds one new record per input" },
];


/** One measured execution of one variant. */
async function measure(variant: Variant, run: number, records: number, seed: number): Promise<Sample> {
  await settle();
  const rss = rssSampler();
  const cpu0 = cpuMs();
  const { ms, value } = await timed(() => variant.run(records, seed));
  const cpu = cpuMs() - cpu0;
  const peakRssMb = rss.stop();
  if (value.records !== records) throw new Error(`${variant.label} counted ${value.records} records, expected ${records}`);
  return { run, variant: variant.id, records, wallMs: ms, recordsPerSecond: records / (ms / 1000), cpuMs: cpu, runningMs: value.runningMs ?? null, peakRssMb };
}

/** Rotates the order of the variants from run to run. */
function rotated<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

async function verifyAgainstLoop(variants: readonly Variant[], records: number, seed: number, log: (l: string) => void): Promise<Record<string, boolean>> {
  const expected = handWrittenWordCount(records, seed);
  const outcome: Record<string, boolean> = {};
  for (const v of variants) {
    if (v.id === 'loop') continue;
    const got = (await v.run(records, seed, true)).counts!;
    const same = got.size === expected.size && [...expected].every(([w, c]) => got.get(w) === c);
    outcome[v.id] = same;
    log(`verify ${v.label}: ${same ? 'final counts equal the loop' : 'FINAL COUNTS DIFFER FROM THE LOOP'} (${fmtNumber(records)} records, ${expected.size} words)`);
    if (!same) throw new Error(`${v.label} computed different word counts from the hand-written loop`);
  }
  return outcome;
}

export const wordcount: Scenario = {
  name: 'wordcount',
  description: `records/s of the word count: hand-written loop vs engine p1 in-thread vs engine p2 on 2 worker TaskManagers (default ${fmtNumber(DEFAULT_RECORDS)} records)`,
  flags: {
    seed: 'generator seed (default 7)',
    only: 'comma-separated variants to run: loop,p1,p2,p2-declared (default all; e.g. --only p1 to profile one)',
    breakdown: 'also time cut-down p1 pipelines and show what each stage costs per record',
    'map-work': 'rounds of a stand-in user function per record in the map (and the loop), default 0: how the speed-up grows when a record costs more than moving it',
    warmup: 'records of the unmeasured warm-up round (default records/10, 0 to skip)',
    'startup-records': 'records of the startup-overhead runs (default 1000, 0 to skip)',
    'verify-records': 'records of the result check against the loop (default 100000, 0 to skip)',
  },

  async run(options): Promise<ScenarioResult> {
    const { log, runs } = options;
    const records = options.records ?? DEFAULT_RECORDS;
    const seed = intFlag(options, 'seed', 7);
    const warmup = intFlag(options, 'warmup', Math.floor(records / 10), 0);
    const startupRecords = intFlag(options, 'startup-records', 1000, 0);
    const verifyRecords = intFlag(options, 'verify-records', 100_000, 0);
    mapWork = intFlag(options, 'map-work', 0, 0);
    const breakdown = options.flags.breakdown !== undefined && options.flags.breakdown !== 'false';
    const only = options.flags.only?.split(',').map((s) => s.trim());
    const main = only ? MAIN_VARIANTS.filter((v) => only.includes(v.id)) : MAIN_VARIANTS;
    if (main.length === 0) throw new Error(`--only matched no variant (have: ${MAIN_VARIANTS.map((v) => v.id).join(', ')})`);
    const extra = breakdown ? BREAKDOWN.map((b) => b.variant).filter((v) => !main.includes(v)) : [];
    const measured = [...main, ...extra];
    const engines = main.filter((v) => v.id !== 'loop');

    const verified = verifyRecords > 0 && engines.length > 0 ? await verifyAgainstLoop(main, verifyRecords, seed, log) : {};

    if (warmup > 0) {
      log(`warm-up round: ${fmtNumber(warmup)} records per variant`);
      for (const v of measured) await measure(v, -1, warmup, seed);
    }

    const startup: Sample[] = [];
    const samples: Sample[] = [];
    for (let run = 0; run < runs; run++) {
      for (const v of rotated(measured, run)) {
        const s = await measure(v, run, records, seed);
        samples.push(s);
        log(`run ${run + 1}/${runs} ${v.label.padEnd(32)} ${fmtNumber(s.recordsPerSecond).padStart(12)} records/s  ${fmtMs(s.wallMs)}`);
      }
      // The startup overhead, interleaved with the big runs so that it sees the same machine.
      if (startupRecords > 0) {
        for (const v of engines) {
          const s = await measure(v, run, startupRecords, seed);
          startup.push(s);
          log(`run ${run + 1}/${runs} ${(v.label + ' startup').padEnd(32)} ${fmtMs(s.wallMs)} for ${fmtNumber(startupRecords)} records`);
        }
      }
    }

    const of = (id: VariantId, from: readonly Sample[] = samples) => from.filter((s) => s.variant === id);
    const stats = new Map<VariantId, { rate: Summary; wall: Summary; cpuNsPerRecord: Summary; runningRate: Summary | null; rss: number }>();
    for (const v of measured) {
      const ss = of(v.id);
      stats.set(v.id, {
        rate: summarize(ss.map((s) => s.recordsPerSecond)),
        wall: summarize(ss.map((s) => s.wallMs)),
        cpuNsPerRecord: summarize(ss.map((s) => (s.cpuMs * 1e6) / s.records)),
        runningRate: ss[0]?.runningMs == null ? null : summarize(ss.map((s) => s.records / (s.runningMs! / 1000))),
        rss: Math.max(...ss.map((s) => s.peakRssMb)),
      });
    }

    // Paired ratios: both sides of a ratio come from the same run, then the median over runs.
    // `of`: what is compared: records/s from executeJob() (loop: its whole run), from RUNNING, or CPU per record.
    const pairedRatio = (a: VariantId, b: VariantId, of: (s: Sample) => number = (s) => s.recordsPerSecond): Summary | undefined => {
      if (!stats.has(a) || !stats.has(b)) return undefined;
      const ratios: number[] = [];
      for (let run = 0; run < runs; run++) {
        const x = samples.find((s) => s.run === run && s.variant === a)!;
        const y = samples.find((s) => s.run === run && s.variant === b)!;
        ratios.push(of(x) / of(y));
      }
      return summarize(ratios);
    };
    const fromRunning = (s: Sample) => s.records / ((s.runningMs ?? s.wallMs) / 1000);
    const cpuPerRecord = (s: Sample) => s.cpuMs / s.records;
    const p1VsLoop = pairedRatio('p1', 'loop');
    const p2VsP1 = pairedRatio('p2', 'p1', fromRunning);
    const p2DeclaredVsP1 = pairedRatio('p2-declared', 'p1', fromRunning);
    const p2CpuVsP1 = pairedRatio('p2', 'p1', cpuPerRecord);
    const startupMs = new Map(engines.map((v) => [v.id, summarize(of(v.id, startup).map((s) => s.wallMs))]));

    const loopRate = stats.get('loop')?.rate.median;
    const table: Table = {
      columns: ['variant', 'records/s (median)', 'min', 'max', 'wall (median)', 'vs loop', `startup (${fmtNumber(startupRecords)} rec)`, 'rec/s from RUNNING', 'CPU ns/rec', 'peak RSS MB'],
      rows: main.map((v) => {
        const st = stats.get(v.id)!;
        const up = startupMs.get(v.id);
        return [
          v.label,
          fmtNumber(st.rate.median),
          fmtNumber(st.rate.min),
          fmtNumber(st.rate.max),
          fmtMs(st.wall.median),
          loopRate ? fmtRatio(st.rate.median / loopRate) : '-',
          up && up.samples.length > 0 ? fmtMs(up.median) : '-',
          st.runningRate ? fmtNumber(st.runningRate.median) : '-',
          fmtNumber(st.cpuNsPerRecord.median),
          fmtNumber(st.rss),
        ];
      }),
    };

    const extraTables: Array<{ title: string; table: Table }> = [];
    if (breakdown) {
      const nsPerRecord = (id: VariantId) => 1e9 / stats.get(id)!.rate.median;
      let previous = 0;
      const loopNs = loopRate ? 1e9 / loopRate : NaN;
      extraTables.push({
        title: `Where p1's time goes (wall ns per record, medians; loop: ${Number.isFinite(loopNs) ? loopNs.toFixed(0) : '-'} ns per record)`,
        table: {
          columns: ['pipeline', 'ns/record', 'added', 'what the step adds'],
          align: ['left', 'right', 'right', 'left'],
          rows: BREAKDOWN.map(({ variant, stage }, i) => {
            const ns = nsPerRecord(variant.id);
            const row = [variant.id === 'p1' ? 'p1 full word count' : variant.label, ns.toFixed(0), i === 0 ? '-' : `+${(ns - previous).toFixed(0)}`, stage];
            previous = ns;
            return row;
          }),
        },
      });
    }

    const goal = (name: string, r: Summary | undefined, target: number) =>
      r ? `${name}: ${fmtRatio(r.median)} median of per-run ratios (range ${fmtRatio(r.min)}..${fmtRatio(r.max)}), goal >= ${target}x: ${r.median >= target ? 'met' : 'NOT met'}` : undefined;
    const shortest = Math.min(...engines.map((v) => stats.get(v.id)!.wall.median));
    const notes = [
      `${fmtNumber(records)} records per run, ${runs} runs, variants interleaved in rotating order; records/s = records / wall time from executeJob() to FINISHED (startup included)`,
      startupRecords > 0 && engines.length > 0 ? `startup = wall time of the same job over ${fmtNumber(startupRecords)} records (planning, worker threads, deployment, teardown)` : undefined,
      engines.length > 0 ? `rec/s from RUNNING leaves out planning and TaskManager start-up; CPU ns/rec is the whole process's CPU time (all threads) per record` : undefined,
      goal('engine-p1 / loop', p1VsLoop, GOAL_P1_VS_LOOP),
      goal('engine-p2 / engine-p1 (rec/s from RUNNING)', p2VsP1, GOAL_P2_VS_P1),
      p2VsP1 ? `engine-p2 / engine-p1 floor >= ${FLOOR_P2_VS_P1}x (parallelism must pay): ${p2VsP1.median >= FLOOR_P2_VS_P1 ? 'met' : 'NOT met'}` : undefined,
      goal('engine-p2 declared / engine-p1 (rec/s from RUNNING)', p2DeclaredVsP1, GOAL_P2_VS_P1),
      p2CpuVsP1
        ? `engine-p2 / engine-p1 CPU per record: ${fmtRatio(p2CpuVsP1.median)} median (range ${fmtRatio(p2CpuVsP1.min)}..${fmtRatio(p2CpuVsP1.max)}), goal <= ${GOAL_P2_CPU_VS_P1}x: ${p2CpuVsP1.median <= GOAL_P2_CPU_VS_P1 ? 'met' : 'NOT met'}`
        : undefined,
      engines.length > 0 && shortest < MIN_ENGINE_RUN_MS
        ? `warning: an engine variant ran only ${fmtMs(shortest)} per run (< ${MIN_ENGINE_RUN_MS} ms); startup and noise weigh more than they should: raise --records`
        : undefined,
      `peak RSS is of the whole process (worker threads included), sampled every 50 ms`,
    ].filter((n): n is string => n !== undefined);

    return {
      table,
      extraTables,
      notes,
      data: {
        settings: { records, seed, warmup, startupRecords, verifyRecords, breakdown, variants: measured.map((v) => v.id), job: JOB },
        verified,
        summary: Object.fromEntries(
          measured.map((v) => {
            const st = stats.get(v.id)!;
            return [
              v.id,
              {
                label: v.label,
                recordsPerSecond: st.rate,
                wallMs: st.wall,
                recordsPerSecondFromRunning: st.runningRate,
                cpuNsPerRecord: st.cpuNsPerRecord,
                startupMs: startupMs.get(v.id) ?? null,
                peakRssMb: st.rss,
              },
            ];
          }),
        ),
        ratios: {
          p1VsLoop: p1VsLoop ?? null,
          p2VsP1FromRunning: p2VsP1 ?? null,
          p2DeclaredVsP1FromRunning: p2DeclaredVsP1 ?? null,
          p2CpuVsP1: p2CpuVsP1 ?? null,
          p1VsLoopOfMedians: stats.has('p1') && loopRate ? stats.get('p1')!.rate.median / loopRate : null,
          p2VsP1OfMedians: stats.has('p1') && stats.has('p2') ? stats.get('p2')!.rate.median / stats.get('p1')!.rate.median : null,
          goals: { p1VsLoop: GOAL_P1_VS_LOOP, p2VsP1: GOAL_P2_VS_P1, p2VsP1Floor: FLOOR_P2_VS_P1, p2CpuVsP1: GOAL_P2_CPU_VS_P1 },
        },
        medianRunningMs: Object.fromEntries(engines.map((v) => [v.id, median(of(v.id).map((s) => s.runningMs ?? NaN))])),
        samples,
        startupSamples: startup,
      },
    };
  },
};
