// Scenario `cluster`: the word count on two TaskManager processes, whose records cross between the
// processes over TCP (one connection, ring segments with credits), beside the same job on two
// worker-thread TaskManagers of one process (shared-memory rings) and at parallelism 1 in one
// thread; with checkpoints, how long they take across processes against across threads.
//
//   p1       the engine, parallelism 1, one TaskManager in this thread
//   threads  parallelism 2 on two worker-thread TaskManagers (weir run --task-managers 2)
//   tcp      parallelism 2 on two `weir taskmanager` processes of one slot each, under a JobManager
//            in this process (weir run -m)
//
// Throughput is taken from the moment every subtask runs to the job's end (records / time), so
// that the processes' slot start-up (a worker thread loading the engine and the job bundle)
// weighs nothing; the wall time from submission is shown too. Variants are interleaved in an order
// that rotates from run to run; ratios are per run, then the median.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJobMaster, type JobMaster } from '../../src/index.ts';
import { bundleJob } from '../../src/cluster/job-bundle.ts';
import { JobManager } from '../../src/cluster/job-manager.ts';
import { buildConfig } from '../../src/config/configuration.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { BENCH_DIR, fmtMs, fmtNumber, fmtRatio, intFlag, median, settle, summarize, type Scenario, type ScenarioResult, type Summary, type Table } from '../harness.ts';
import type { SinkReport } from '../jobs/wordcount-bench.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const JOB = join(BENCH_DIR, 'jobs', 'wordcount-bench.ts');
const WEIR_BIN = join(BENCH_DIR, '..', 'bin', 'weir.mjs');
const DEFAULT_RECORDS = 4_000_000;
const GOAL_TCP_VS_THREADS = 0.85;

type VariantId = 'p1' | 'threads' | 'tcp';

interface Sample {
  readonly run: number;
  readonly variant: VariantId;
  readonly checkpoints: boolean;
  readonly wallMs: number;
  readonly runningMs: number;
  readonly recordsPerSecond: number;
  readonly checkpointMs: readonly number[];
}

/** A JobManager here and two TaskManager processes of one slot each, for every tcp run. */
class BenchCluster {
  readonly jm: JobManager;
  readonly children: ChildProcess[] = [];
  readonly dir = mkdtempSync(join(tmpdir(), 'weir-bench-cluster-'));
  hash = '';

  constructor() {
    this.jm = new JobManager({ config: buildConfig({ 'rest.port': 0 }), settings: {}, token: null, workDir: join(this.dir, 'jm'), log: silentLogger });
  }

  async start(): Promise<void> {
    await this.jm.start();
    const address = this.jm.url.replace(/^http:\/\//, '');
    const registered = new Promise<void>((resolve) => {
      const check = () => this.jm.resources.taskManagers().length >= 2 && resolve();
      this.jm.resources.onChange(check);
    });
    for (let i = 0; i < 2; i++) {
      this.children.push(spawn(process.execPath, [WEIR_BIN, 'taskmanager', '--jobmanager', address, '--slots', '1', '--id', `bench-${i}`, '--work-dir', join(this.dir, `tm-${i}`)], { stdio: 'ignore' }));
    }
    await registered;
    const bundle = await bundleJob(JOB);
    this.hash = this.jm.bundles.put(bundle.code, bundle.name).hash;
  }

  submit(args: string[]): Promise<JobMaster> {
    return this.jm.submit(this.hash, { programArgsList: args, parallelism: 2 });
  }

  async stop(): Promise<void> {
    for (const c of this.children) c.kill('SIGTERM');
    await Promise.all(this.children.map((c) => new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r())))));
    await this.jm.stop(SHUTDOWN);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function runOnce(variant: VariantId, cluster: BenchCluster, records: number, checkpoints: boolean): Promise<{ wallMs: number; runningMs: number; checkpointMs: number[] }> {
  const reportDir = mkdtempSync(join(tmpdir(), 'weir-bench-'));
  try {
    const args = ['--words', String(records), '--report-dir', reportDir, ...(checkpoints ? ['--checkpoint-interval', '500'] : [])];
    const start = performance.now();
    const master =
      variant === 'tcp'
        ? await cluster.submit(args)
        : await createJobMaster({ job: JOB, args, config: { 'parallelism.default': variant === 'p1' ? 1 : 2 }, taskManagers: variant === 'p1' ? 0 : 2 });
    const result = variant === 'tcp' ? master.result() : master.run();
    await master.whenRunning();
    const running = performance.now();
    const r = await result;
    const end = performance.now();
    if (r.status !== 'FINISHED') throw new Error(`the ${variant} job ended ${r.status}: ${r.error?.message ?? ''}`);
    const counted = readdirSync(reportDir).reduce((n, f) => n + (JSON.parse(readFileSync(join(reportDir, f), 'utf8')) as SinkReport).records, 0);
    if (counted !== records) throw new Error(`the ${variant} job counted ${counted} records, expected ${records}`);
    const checkpointMs = master.checkpoints.stats.history().filter((s) => s.status === 'COMPLETED').map((s) => s.endToEndDuration);
    return { wallMs: end - start, runningMs: end - running, checkpointMs };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

export const cluster: Scenario = {
  name: 'cluster',
  description: `records/s of the word count on 2 TaskManager processes over TCP vs 2 worker-thread TaskManagers vs p1; checkpoint duration across processes (default ${fmtNumber(DEFAULT_RECORDS)} records)`,
  defaultRuns: 3,
  flags: { 'checkpoint-records': 'records of the runs with checkpoints every 500 ms (default records/2, 0 to skip)' },

  async run(options): Promise<ScenarioResult> {
    const { runs, log } = options;
    const records = options.records ?? DEFAULT_RECORDS;
    const checkpointRecords = intFlag(options, 'checkpoint-records', Math.floor(records / 2), 0);
    const bench = new BenchCluster();
    await bench.start();
    const samples: Sample[] = [];
    try {
      log('warm-up: one small run of each variant');
      for (const v of ['p1', 'threads', 'tcp'] as const) await runOnce(v, bench, Math.floor(records / 10), false);
      const order: VariantId[] = ['p1', 'threads', 'tcp'];
      for (let run = 0; run < runs; run++) {
        for (const v of [...order.slice(run % 3), ...order.slice(0, run % 3)]) {
          await settle();
          const m = await runOnce(v, bench, records, false);
          samples.push({ run, variant: v, checkpoints: false, ...m, recordsPerSecond: records / (m.runningMs / 1000) });
          log(`run ${run + 1}/${runs} ${v.padEnd(8)} ${fmtNumber(records / (m.runningMs / 1000)).padStart(12)} records/s from RUNNING, ${fmtMs(m.wallMs)} wall`);
        }
        if (checkpointRecords > 0) {
          for (const v of ['threads', 'tcp'] as const) {
            await settle();
            const m = await runOnce(v, bench, checkpointRecords, true);
            samples.push({ run, variant: v, checkpoints: true, ...m, recordsPerSecond: checkpointRecords / (m.runningMs / 1000) });
            log(`run ${run + 1}/${runs} ${v.padEnd(8)} with checkpoints: ${m.checkpointMs.length} completed, median ${fmtMs(median(m.checkpointMs))}`);
          }
        }
      }
    } finally {
      await bench.stop();
    }
    const plain = (v: VariantId) => samples.filter((s) => s.variant === v && !s.checkpoints);
    const rate = (v: VariantId): Summary => summarize(plain(v).map((s) => s.recordsPerSecond));
    const paired = (a: VariantId, b: VariantId): Summary =>
      summarize(Array.from({ length: runs }, (_, run) => plain(a).find((s) => s.run === run)!.recordsPerSecond / plain(b).find((s) => s.run === run)!.recordsPerSecond));
    const tcpVsThreads = paired('tcp', 'threads');
    const labels: Record<VariantId, string> = { p1: 'p1 (in-thread)', threads: 'p2, 2 worker-thread TMs', tcp: 'p2, 2 TM processes over TCP' };
    const table: Table = {
      columns: ['variant', 'records/s from RUNNING (median)', 'min', 'max', 'wall from submission (median)', 'vs threads'],
      rows: (['p1', 'threads', 'tcp'] as const).map((v) => {
        const r = rate(v);
        return [labels[v], fmtNumber(r.median), fmtNumber(r.min), fmtNumber(r.max), fmtMs(median(plain(v).map((s) => s.wallMs))), v === 'threads' ? '1.00x' : fmtRatio(median(Array.from({ length: runs }, (_, run) => plain(v).find((s) => s.run === run)!.recordsPerSecond / plain('threads').find((s) => s.run === run)!.recordsPerSecond)))];
      }),
    };
    const withCheckpoints = (v: VariantId) => samples.filter((s) => s.variant === v && s.checkpoints).flatMap((s) => s.checkpointMs);
    const extraTables =
      checkpointRecords > 0
        ? [
            {
              title: `Checkpoints every 500 ms over ${fmtNumber(checkpointRecords)} records (end-to-end duration of completed ones)`,
              table: {
                columns: ['variant', 'checkpoints', 'median', 'min', 'max'],
                rows: (['threads', 'tcp'] as const).map((v) => {
                  const d = withCheckpoints(v);
                  return [labels[v], String(d.length), fmtMs(median(d)), fmtMs(Math.min(...d)), fmtMs(Math.max(...d))];
                }),
              } satisfies Table,
            },
          ]
        : [];
    return {
      table,
      extraTables,
      notes: [
        `${fmtNumber(records)} records per run, ${runs} runs, variants interleaved in rotating order; records/s from the moment every subtask runs to FINISHED`,
        `tcp / threads: ${fmtRatio(tcpVsThreads.median)} median of per-run ratios (range ${fmtRatio(tcpVsThreads.min)}..${fmtRatio(tcpVsThreads.max)}), goal >= ${GOAL_TCP_VS_THREADS}x: ${tcpVsThreads.median >= GOAL_TCP_VS_THREADS ? 'met' : 'NOT met'}`,
        'wall from submission includes, for tcp, each slot thread loading the engine and the job bundle in its TaskManager process',
      ],
      data: { settings: { records, checkpointRecords, job: JOB }, ratios: { tcpVsThreads }, samples },
    };
  },
};
