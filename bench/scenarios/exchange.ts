// Scenario `exchange`: what moving a record from one thread to another costs on weir's data path.
//
// A writer thread builds N records. `loop`: it only builds them and adds them up (the cost of the
// records themselves). `declared` / `inferred`: it writes them into a RingOutputChannel (the
// edge's codec serializes each straight into a segment of a SharedArrayBuffer ring, Atomics
// wake-ups, credits = free segments) and this thread reads them back through connectRingInput
// into an InputChannel, decoding each segment and touching every record, until end of data.
// `declared` uses the codec compiled from the records' type (Types.struct), `inferred` the codec
// of an undeclared stream (a type inferred from the first record, a tag byte per record).
//
// Figures per record, each variant against the loop of the same run (interleaved, rotating order):
//   added CPU   (whole-process CPU time of the exchange - of the loop) / N: encode + ring + decode,
//               on both threads together;
//   added wall  (wall time of the exchange - of the loop) / N: how much longer the pair takes
//               than building the records alone (the two threads work in parallel).
// Goal: {word, count} added CPU <= 60 ns per record. For 1 KiB records: bytes/s through the ring.
//
// Workloads: `word` {word: 4-8 ASCII chars, count: int < 10000}; `bid` a Nexmark bid (4 ints, 3
// strings, ~200 bytes: what the joins send between threads); `1k` {id, text: ~1 KiB ASCII,
// score: double}. `declared` sends a declared struct of three fields or more by column, a block
// per segment (block-codec.ts); `rows` the same codec a record after another. Ring: 8 segments of 32 KiB (weir's defaults).
import { Worker } from 'node:worker_threads';
import { InputChannel } from '../../src/network/input-channel.ts';
import { connectRingInput } from '../../src/network/ring-input.ts';
import { SegmentRing } from '../../src/network/segment-ring.ts';
import { cpuMs, fmtNumber, intFlag, listFlag, median, settle, type Scenario, type ScenarioResult, type Table } from '../harness.ts';
import { codecFor, WORKLOADS, type ExchangeWorkload } from './exchange-workloads.ts';
import type { WriterJob } from './exchange-writer.ts';

const GOAL_NS = 60;
const SHAPE = { segments: 8, segmentSize: 32 * 1024 };
type Mode = WriterJob['mode'];

interface Sample {
  readonly workload: ExchangeWorkload['id'];
  readonly mode: Mode;
  readonly run: number;
  readonly records: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly bytes: number;
}

/** The writer thread, its TypeScript compiled on load as weir's own worker threads are in the repository. */
function startWriter(): Worker {
  const entry = new URL('./exchange-writer.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then((api) => { api.register(); return import(${JSON.stringify(entry)}); })`;
  const profiling = process.execArgv.filter((a) => /^--(cpu|heap)-prof/.test(a));
  return new Worker(bootstrap, { eval: true, execArgv: ['--conditions=weir-source', ...profiling] });
}

function ask(worker: Worker, job: WriterJob): Promise<number> {
  return new Promise((resolve, reject) => {
    // The error listener goes with the answer: one left per job made Node warn of a listener leak.
    const onMessage = (m: { result: number }) => {
      worker.off('error', onError);
      resolve(m.result);
    };
    const onError = (e: unknown) => {
      worker.off('message', onMessage);
      reject(e);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
    worker.postMessage(job);
  });
}

/** Reads the ring until end of data, touching every record; resolves with their sum. */
function read(ring: SegmentRing, w: ExchangeWorkload, mode: Exclude<Mode, 'loop'>): { done: Promise<number>; close: () => void } {
  const input = new InputChannel(0, 'exchange');
  let sum = 0;
  let scheduled = false;
  let finish!: (n: number) => void;
  const done = new Promise<number>((r) => (finish = r));
  const drain = () => {
    scheduled = false;
    for (let item = input.poll(); item !== undefined; item = input.poll()) {
      if (item.kind === 'records') for (const r of item.records) sum += w.touch(r);
      else if (item.kind === 'end-of-data') return finish(sum);
    }
  };
  input.onData = () => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(drain);
    }
  };
  const close = connectRingInput(ring, input, codecFor(mode, w), (e) => {
    throw e;
  });
  return { done, close };
}

async function measure(worker: Worker, w: ExchangeWorkload, mode: Mode, records: number, run: number): Promise<Sample> {
  await settle(20);
  const cpu0 = cpuMs();
  const t0 = performance.now();
  let bytes = 0;
  if (mode === 'loop') {
    await ask(worker, { mode, workload: w.id, records });
  } else {
    const ring = SegmentRing.create(SHAPE);
    const reader = read(ring, w, mode);
    const [written] = await Promise.all([ask(worker, { mode, workload: w.id, records, ring: ring.buffer, shape: SHAPE }), reader.done]);
    bytes = written;
    reader.close();
  }
  return { workload: w.id, mode, run, records, wallMs: performance.now() - t0, cpuMs: cpuMs() - cpu0, bytes };
}

export const exchange: Scenario = {
  name: 'exchange',
  description: 'the cost of moving records between two threads through a shared-memory ring (encode + ring + decode), against a loop that only builds them',
  flags: { 'records-1k': 'records of the 1 KiB workload (default records/20)', workloads: 'which workloads, comma-separated (default word,bid,1k): one alone to profile it', modes: 'which codecs beside the loop (default declared,rows,inferred)' },
  defaultRuns: 5,
  async run(options): Promise<ScenarioResult> {
    const records = { word: options.records ?? 4_000_000, bid: Math.floor((options.records ?? 4_000_000) / 8), '1k': intFlag(options, 'records-1k', Math.max(1, Math.floor((options.records ?? 4_000_000) / 20))) };
    const worker = startWriter();
    const samples: Sample[] = [];
    try {
      const modes: Mode[] = ['loop', ...listFlag(options, 'modes', ['declared', 'rows', 'inferred'] as const)];
      for (const w of listFlag(options, 'workloads', Object.keys(WORKLOADS) as ExchangeWorkload['id'][]).map((id) => WORKLOADS[id])) {
        // Warm-up: both threads compile their codecs and hot paths.
        for (const mode of modes) await measure(worker, w, mode, Math.floor(records[w.id] / 10), -1);
        for (let run = 0; run < options.runs; run++) {
          for (let k = 0; k < modes.length; k++) {
            const mode = modes[(k + run) % modes.length]!;
            const s = await measure(worker, w, mode, records[w.id], run);
            samples.push(s);
            options.log(`run ${run + 1}/${options.runs} ${w.id.padEnd(4)} ${mode.padEnd(8)} ${fmtNumber(s.wallMs, 1)} ms wall, ${fmtNumber(s.cpuMs, 1)} ms CPU`);
          }
        }
      }
    } finally {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('stop');
      await exited;
    }
    return summarizeSamples(samples, options.runs);
  },
};

function summarizeSamples(samples: readonly Sample[], runs: number): ScenarioResult {
  const rows: string[][] = [];
  const notes: string[] = [];
  const summary: Record<string, unknown> = {};
  for (const w of Object.values(WORKLOADS)) {
    if (!samples.some((x) => x.workload === w.id)) continue;
    for (const mode of ['declared', 'rows', 'inferred'] as const) {
      if (!samples.some((x) => x.workload === w.id && x.mode === mode)) continue;
      const per = (f: (s: Sample, loop: Sample) => number) =>
        median(
          Array.from({ length: runs }, (_, run) => {
            const s = samples.find((x) => x.workload === w.id && x.mode === mode && x.run === run)!;
            const loop = samples.find((x) => x.workload === w.id && x.mode === 'loop' && x.run === run)!;
            return f(s, loop);
          }),
        );
      const addedCpu = per((s, l) => ((s.cpuMs - l.cpuMs) * 1e6) / s.records);
      const addedWall = per((s, l) => ((s.wallMs - l.wallMs) * 1e6) / s.records);
      const recordsPerSecond = per((s) => s.records / (s.wallMs / 1000));
      const mibPerSecond = per((s) => s.bytes / (1024 * 1024) / (s.wallMs / 1000));
      const bytesPerRecord = per((s) => s.bytes / s.records);
      rows.push([w.id, mode, fmtNumber(addedCpu, 1), fmtNumber(addedWall, 1), fmtNumber(recordsPerSecond), fmtNumber(mibPerSecond), fmtNumber(bytesPerRecord, 1)]);
      summary[`${w.id}/${mode}`] = { addedCpuNsPerRecord: addedCpu, addedWallNsPerRecord: addedWall, recordsPerSecond, mibPerSecond, bytesPerRecord };
      if (w.id === 'word' && mode !== 'rows') notes.push(`${w.id} ${mode}: added CPU ${fmtNumber(addedCpu, 1)} ns/record (median of per-run differences), goal <= ${GOAL_NS} ns: ${addedCpu <= GOAL_NS ? 'met' : 'NOT met'}`);
    }
  }
  const table: Table = {
    columns: ['records', 'codec', 'added CPU ns/rec', 'added wall ns/rec', 'records/s', 'MiB/s', 'bytes/rec'],
    rows,
  };
  notes.push("declared: records by column, a block per segment (the edge codec of a declared struct); rows: the same declared codec a record after another, as before blocks");
  notes.push('added = exchange minus the loop that only builds the records, in the same run (runs interleaved, rotating order); CPU is the whole process\'s (both threads)');
  return { table, notes, data: { shape: SHAPE, summary, samples } };
}
