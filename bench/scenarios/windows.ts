// Scenario `windows`: an event-time window count over out-of-order keyed events, in the engine and
// in a hand-written loop, and sliding windows against tumbling ones.
//
//   loop           for i in 0..N-1: e = eventAt(i); counts[e.key][windowStart(e.timestamp)]++; every
//                  4096 events the windows the watermark (max timestamp - bound - 1) has passed are
//                  emitted and dropped, the rest at the end: what the engine's job does, by hand
//   tumbling p1    the engine, parallelism 1 in-thread: DataGen.events -> watermarks per split ->
//                  keyBy(key) -> TumblingEventTimeWindows.of(size) -> aggregate(count) -> sink
//   sliding p1     the same with SlidingEventTimeWindows.of(size, size / 10): kept as panes of the
//                  slide, so a record costs one pane update, not ten window updates
//   tumbling p2    tumbling at parallelism 2 on 2 worker TaskManagers
//
// Goals (issue 17): report tumbling p1 / loop; sliding (size = 10 x slide) at most 2x the cost of
// tumbling. Variants run interleaved in rotating order; ratios are taken within a run and the
// median over runs reported (the machine is shared and noisy).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executeJob } from '../../src/index.ts';
import { TimedEventGenerator } from '../../src/connectors/datagen/index.ts';
import { BENCH_DIR, cpuMs, fmtMs, fmtNumber, fmtRatio, intFlag, settle, summarize, timed, type Scenario, type ScenarioResult, type Summary, type Table } from '../harness.ts';
import type { WindowSinkReport } from '../jobs/windows-bench.ts';

const JOB = join(BENCH_DIR, 'jobs', 'windows-bench.ts');
const DEFAULT_RECORDS = 10_000_000;
const GOAL_SLIDING_VS_TUMBLING_COST = 2;

type VariantId = 'loop' | 'tumbling-p1' | 'sliding-p1' | 'tumbling-p2';

interface Settings {
  readonly keys: number;
  readonly rate: number;
  readonly ooo: number;
  readonly size: number;
}

interface Outcome {
  readonly windows: number;
  readonly counted: number;
  readonly runningMs?: number;
}

interface Sample {
  readonly run: number;
  readonly variant: VariantId;
  readonly wallMs: number;
  readonly recordsPerSecond: number;
  readonly runningMs: number | null;
  readonly cpuNsPerRecord: number;
  readonly windows: number;
}

/** The same count by hand: nested maps, windows emitted as the bounded-out-of-orderness watermark passes them. */
export function handWrittenWindowCount(records: number, s: Settings): Outcome {
  const gen = new TimedEventGenerator({ seed: 7, keys: s.keys, eventsPerSecond: s.rate, maxOutOfOrderness: s.ooo });
  const open = new Map<string, Map<number, number>>();
  const size = s.size;
  let maxTs = -Infinity;
  let windows = 0;
  let counted = 0;
  const emitUpTo = (watermark: number) => {
    for (const m of open.values()) {
      for (const [start, n] of m) {
        if (start + size - 1 > watermark) continue;
        windows++;
        counted += n;
        m.delete(start);
      }
    }
  };
  for (let i = 0; i < records; i++) {
    const e = gen.eventAt(i);
    const ts = e.timestamp;
    const start = ts - (((ts % size) + size) % size);
    let m = open.get(e.key);
    if (m === undefined) open.set(e.key, (m = new Map()));
    m.set(start, (m.get(start) ?? 0) + 1);
    if (ts > maxTs) maxTs = ts;
    if ((i & 4095) === 4095) emitUpTo(maxTs - s.ooo - 1);
  }
  emitUpTo(Infinity);
  return { windows, counted };
}

async function runEngine(window: 'tumbling' | 'sliding', parallelism: number, taskManagers: number, records: number, s: Settings): Promise<Outcome> {
  const reportDir = mkdtempSync(join(tmpdir(), 'weir-bench-windows-'));
  try {
    let runningSince = NaN;
    const result = await executeJob({
      job: JOB,
      args: ['--events', String(records), '--window', window, '--keys', String(s.keys), '--rate', String(s.rate), '--ooo', String(s.ooo), '--size', String(s.size), '--report-dir', reportDir],
      config: { 'parallelism.default': parallelism },
      taskManagers,
      listener: { onStatus: (st) => void (st === 'RUNNING' && Number.isNaN(runningSince) && (runningSince = performance.now())) },
    });
    const end = performance.now();
    if (result.status !== 'FINISHED') throw new Error(`the benchmark job ended ${result.status}: ${result.error?.message ?? 'no error'}`);
    const reports = readdirSync(reportDir).map((f) => JSON.parse(readFileSync(join(reportDir, f), 'utf8')) as WindowSinkReport);
    return { windows: reports.reduce((n, r) => n + r.windows, 0), counted: reports.reduce((n, r) => n + r.counted, 0), runningMs: end - runningSince };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

interface Variant {
  readonly id: VariantId;
  readonly label: string;
  /** How many windows each record is counted in. */
  readonly windowsPerRecord: number;
  readonly run: (records: number, s: Settings) => Promise<Outcome>;
}

const VARIANTS: readonly Variant[] = [
  { id: 'loop', label: 'hand-written loop (tumbling)', windowsPerRecord: 1, run: async (n, s) => handWrittenWindowCount(n, s) },
  { id: 'tumbling-p1', label: 'engine tumbling p1', windowsPerRecord: 1, run: (n, s) => runEngine('tumbling', 1, 0, n, s) },
  { id: 'sliding-p1', label: 'engine sliding (10 x slide) p1', windowsPerRecord: 10, run: (n, s) => runEngine('sliding', 1, 0, n, s) },
  { id: 'tumbling-p2', label: 'engine tumbling p2 (2 worker TMs)', windowsPerRecord: 1, run: (n, s) => runEngine('tumbling', 2, 2, n, s) },
];

export const windows: Scenario = {
  name: 'windows',
  description: `event-time window counts: hand-written loop vs engine tumbling and sliding (size = 10 x slide) windows (default ${fmtNumber(DEFAULT_RECORDS)} events)`,
  defaultRuns: 3,
  flags: {
    keys: 'distinct keys (default 100)',
    rate: 'events per second of event time (default 100,000: 1,000 events per key and 1 s window)',
    ooo: 'out-of-orderness of the events and bound of the watermarks, ms (default 50)',
    size: 'window size, ms (default 1000; sliding windows slide size / 10)',
    only: 'comma-separated variants: loop,tumbling-p1,sliding-p1,tumbling-p2 (default all)',
    warmup: 'events of the unmeasured warm-up round (default records/10, 0 to skip)',
  },

  async run(options): Promise<ScenarioResult> {
    const { log, runs } = options;
    const records = options.records ?? DEFAULT_RECORDS;
    const s: Settings = { keys: intFlag(options, 'keys', 100), rate: intFlag(options, 'rate', 100_000), ooo: intFlag(options, 'ooo', 50, 0), size: intFlag(options, 'size', 1000, 10) };
    const warmup = intFlag(options, 'warmup', Math.floor(records / 10), 0);
    const only = options.flags.only?.split(',').map((x) => x.trim());
    const variants = only ? VARIANTS.filter((v) => only.includes(v.id)) : VARIANTS;
    if (variants.length === 0) throw new Error(`--only matched no variant (have: ${VARIANTS.map((v) => v.id).join(', ')})`);

    // The engine must count what the loop counts: every record once per window it belongs to.
    const measure = async (v: Variant, run: number, n: number): Promise<Sample> => {
      await settle();
      const cpu0 = cpuMs();
      const { ms, value } = await timed(() => v.run(n, s));
      const cpu = cpuMs() - cpu0;
      if (value.counted !== n * v.windowsPerRecord) throw new Error(`${v.label} counted ${value.counted} window memberships, expected ${n * v.windowsPerRecord}`);
      return { run, variant: v.id, wallMs: ms, recordsPerSecond: n / (ms / 1000), runningMs: value.runningMs ?? null, cpuNsPerRecord: (cpu * 1e6) / n, windows: value.windows };
    };

    if (warmup > 0) {
      log(`warm-up round: ${fmtNumber(warmup)} events per variant`);
      for (const v of variants) await measure(v, -1, warmup);
    }
    const samples: Sample[] = [];
    for (let run = 0; run < runs; run++) {
      const k = run % variants.length;
      for (const v of [...variants.slice(k), ...variants.slice(0, k)]) {
        const sample = await measure(v, run, records);
        samples.push(sample);
        log(`run ${run + 1}/${runs} ${v.label.padEnd(36)} ${fmtNumber(sample.recordsPerSecond).padStart(12)} events/s  ${fmtMs(sample.wallMs)}  ${fmtNumber(sample.windows)} windows`);
      }
    }

    const of = (id: VariantId) => samples.filter((x) => x.variant === id);
    const fromRunning = (x: Sample) => records / ((x.runningMs ?? x.wallMs) / 1000);
    const paired = (a: VariantId, b: VariantId, f: (x: Sample) => number): Summary | undefined => {
      if (of(a).length === 0 || of(b).length === 0) return undefined;
      const ratios: number[] = [];
      for (let run = 0; run < runs; run++) ratios.push(f(samples.find((x) => x.run === run && x.variant === a)!) / f(samples.find((x) => x.run === run && x.variant === b)!));
      return summarize(ratios);
    };
    const tumblingVsLoop = paired('tumbling-p1', 'loop', (x) => x.recordsPerSecond);
    const tumblingVsLoopRunning = paired('tumbling-p1', 'loop', fromRunning);
    // Cost = time per event: sliding's over tumbling's.
    const slidingCost = paired('sliding-p1', 'tumbling-p1', (x) => 1 / fromRunning(x));
    const p2VsP1 = paired('tumbling-p2', 'tumbling-p1', fromRunning);

    const loopRate = of('loop').length > 0 ? summarize(of('loop').map((x) => x.recordsPerSecond)).median : undefined;
    const table: Table = {
      columns: ['variant', 'events/s (median)', 'min', 'max', 'wall (median)', 'ev/s from RUNNING', 'vs loop', 'CPU ns/event', 'windows emitted'],
      rows: variants.map((v) => {
        const xs = of(v.id);
        const rate = summarize(xs.map((x) => x.recordsPerSecond));
        const running = xs[0]?.runningMs == null ? undefined : summarize(xs.map(fromRunning));
        return [
          v.label,
          fmtNumber(rate.median),
          fmtNumber(rate.min),
          fmtNumber(rate.max),
          fmtMs(summarize(xs.map((x) => x.wallMs)).median),
          running ? fmtNumber(running.median) : '-',
          loopRate ? fmtRatio(rate.median / loopRate) : '-',
          fmtNumber(summarize(xs.map((x) => x.cpuNsPerRecord)).median),
          fmtNumber(xs[0]?.windows ?? 0),
        ];
      }),
    };
    const ratio = (name: string, r: Summary | undefined, extra = '') => (r ? `${name}: ${fmtRatio(r.median)} median of per-run ratios (range ${fmtRatio(r.min)}..${fmtRatio(r.max)})${extra}` : undefined);
    const notes = [
      `${fmtNumber(records)} events per run (${s.keys} keys, ${fmtNumber(s.rate)} events per second of event time, out-of-order by up to ${s.ooo} ms; windows of ${s.size} ms), ${runs} runs, variants interleaved`,
      ratio('engine tumbling p1 / loop (events/s, wall from executeJob)', tumblingVsLoop),
      ratio('engine tumbling p1 / loop (events/s from RUNNING)', tumblingVsLoopRunning),
      ratio(
        'sliding / tumbling cost per event (from RUNNING)',
        slidingCost,
        slidingCost ? `, goal <= ${GOAL_SLIDING_VS_TUMBLING_COST}x: ${slidingCost.median <= GOAL_SLIDING_VS_TUMBLING_COST ? 'met' : 'NOT met'}` : '',
      ),
      ratio('engine tumbling p2 / p1 (events/s from RUNNING)', p2VsP1),
      `CPU ns/event is the whole process's CPU time (all threads) per event`,
    ].filter((n): n is string => n !== undefined);
    return {
      table,
      notes,
      data: {
        settings: { records, ...s, warmup, variants: variants.map((v) => v.id), job: JOB },
        ratios: { tumblingVsLoop: tumblingVsLoop ?? null, tumblingVsLoopFromRunning: tumblingVsLoopRunning ?? null, slidingVsTumblingCost: slidingCost ?? null, p2VsP1FromRunning: p2VsP1 ?? null, goals: { slidingVsTumblingCost: GOAL_SLIDING_VS_TUMBLING_COST } },
        samples,
      },
    };
  },
};
