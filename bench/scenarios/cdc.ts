// Scenario `cdc`: the MySQL/MariaDB CDC source's snapshot against a plain streaming SELECT of the
// same table, its speed-up from a second reader, and its binlog phase.
//
// One private MariaDB (test/fixtures/mariadb-server.ts: installed binaries, temp dir, binlog ROW)
// holds `test.orders`, made by createOrders (test/fixtures/cdc-workload.ts): N rows of
// (id INT PRIMARY KEY = 2, 4, 6, ..., customer VARCHAR(40), amount DECIMAL(12,2), big BIGINT with
// every 7th NULL, status VARCHAR(16), updated DATETIME(3)), about 60 bytes of data per row.
//
//   plain     SELECT * FROM test.orders through mysql2's streaming callback API ('result' event
//             per row), decoded by the source's snapshotTypeCast on a session set up as the
//             source's, rows counted by hand (cdc-plain-read.ts)
//   plain2    two such reads at once, half of the keys each, in two worker threads, timed from
//             when both are connected: the most a second reader can gain on this machine (fresh
//             threads each run, whose JIT starts cold, as p2's worker TaskManagers' does)
//   p1        the CDC job (bench/jobs/cdc-bench.ts: source -> counting sink, startup initial,
//             default chunk size 8096, checkpointing off unless --checkpoint-interval) at
//             parallelism 1, in this thread
//   p2        the same at parallelism 2 on two worker-thread TaskManagers
//
// Snapshot rows/s = N / (wall time from createJobMaster() until the sink subtasks have reported
// all N 'r' records). The sinks report their counts on a BroadcastChannel once per event-loop turn
// in which records arrived (see CountingChangeSink), so the end is an event, not a poll.
//
// The binlog phase, in the same p1 and p2 jobs once their snapshot is done and their source
// subtask reports 'following the binlog': the benchmark applies C row changes (UPDATE of
// amount, status and updated over a range of ids: T transactions of S multi-row UPDATE
// statements each) and times from the first BEGIN until the sink has seen all C 'u' records
// (live: bounded by how fast the server applies them, which is reported beside it). `catch-up`
// then starts a fresh p1 job at the binlog position taken before the p1 job's changes (startup
// FILE:POS, no snapshot) and times it until the sink has seen those C changes: the source's own
// speed through a binlog that is already written.
//
// Variants run interleaved in a rotating order, each once per run; ratios are taken within a run
// and the median over runs is reported.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import { startMariaDb, type MariaDbServer } from '../../test/fixtures/mariadb-server.ts';
import { connect, createOrders, type Sql } from '../../test/fixtures/cdc-workload.ts';
import {
  intFlag,
  BENCH_DIR,
  cpuMs,
  fmtMs,
  fmtNumber,
  fmtRatio,
  settle,
  summarize,
  timed,
  type Scenario,
  type ScenarioOptions,
  type ScenarioResult,
  type Summary,
  type Table,
} from '../harness.ts';
import type { CdcSinkReport } from '../jobs/cdc-bench.ts';
import { plainRead, plainReadsInWorkers, type PlainReadTarget } from './cdc-plain-read.ts';
import { SinkCounts } from './cdc-sink-counts.ts';
import { PG_VARIANTS, runPostgresCdc } from './cdc-postgres.ts';

const JOB = join(BENCH_DIR, 'jobs', 'cdc-bench.ts');
const TABLE = 'orders';
const DEFAULT_RECORDS = 1_000_000;
const DEFAULT_CHANGES = 200_000;
const GOAL_P1_VS_PLAIN = 0.7;
const GOAL_P2_VS_P1 = 1.3;
const TIMEOUT_MS = 120_000;

type VariantId = 'plain' | 'plain2' | 'p1' | 'p2' | 'catch-up';

/** One measured execution of one variant. */
interface Sample {
  readonly run: number;
  readonly variant: VariantId;
  /** Snapshot rows (plain, p1, p2) or binlog changes (catch-up). */
  readonly records: number;
  readonly wallMs: number;
  readonly perSecond: number;
  /** From the job's RUNNING status (TaskManagers up) to the end; engine variants only. */
  readonly fromRunningMs: number | null;
  /** CPU time of this process (all threads) and of the MariaDB server during the measured part. */
  readonly cpuMs: number;
  readonly serverCpuMs: number;
  /** The split enumerator's own figure (rows from its start to the last chunk reported finished). */
  readonly enumeratorRowsPerSecond: number | null;
  /** Snapshot rows per reader (the sinks are chained to the readers): how evenly the chunks went round. */
  readonly rowsPerReader: readonly number[] | null;
  /** The live binlog phase that followed the snapshot in the same job (p1, p2). */
  readonly live: LiveSample | null;
}

interface LiveSample {
  readonly changes: number;
  /** First BEGIN until the sink has seen every change. */
  readonly wallMs: number;
  readonly perSecond: number;
  /** First BEGIN until the last COMMIT returned: the server applying the changes. */
  readonly applyMs: number;
  /** Last COMMIT returned until the sink had seen every change. */
  readonly tailMs: number;
  readonly cpuMs: number;
  readonly serverCpuMs: number;
}

interface Bench {
  readonly server: MariaDbServer;
  readonly sql: Sql;
  readonly rows: number;
  readonly changes: number;
  readonly transactions: number;
  readonly statements: number;
  readonly chunkSize: number | undefined;
  readonly checkpointInterval: number | undefined;
  /** How many change batches were applied so far: each takes the next range of ids. */
  batches: number;
  /** Where the p1 job's live changes of each run start in the binlog, for catch-up. */
  readonly p1ChangesAt: Map<number, { file: string; pos: number }>;
}


/** CPU time (user + system) of a process by pid, in milliseconds (Linux /proc). */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 per second on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

function serverPid(server: MariaDbServer): number {
  return Number(readFileSync(join(server.dataDir, '..', 'mariadb.pid'), 'utf8').trim());
}

/** CPU of this process and of the server over a stretch of time. */
function cpuMeter(server: MariaDbServer): () => { cpuMs: number; serverCpuMs: number } {
  const pid = serverPid(server);
  const own0 = cpuMs();
  const server0 = processCpuMs(pid);
  return () => ({ cpuMs: cpuMs() - own0, serverCpuMs: processCpuMs(pid) - server0 });
}

// ---- the jobs ----

/** A running benchmark job with its sink counts; stop() cancels it. */
interface RunningJob {
  readonly job: JobMaster;
  readonly counts: SinkCounts;
  /** performance.now() before createJobMaster(), and when the job reported RUNNING (NaN before). */
  readonly startedAt: number;
  readonly runningAt: number;
  stop(): Promise<void>;
}

async function startJob(b: Bench, parallelism: number, taskManagers: number, startup: string): Promise<RunningJob> {
  const channel = `weir-bench-cdc-${randomBytes(6).toString('hex')}`;
  const counts = new SinkCounts(channel);
  const startedAt = performance.now();
  const o = b.server.connectionOptions();
  const args = ['--host', o.host, '--port', String(o.port), '--user', o.user, '--password', o.password, '--table', TABLE, '--channel', channel, '--startup', startup];
  if (b.chunkSize !== undefined) args.push('--chunk-size', String(b.chunkSize));
  if (b.checkpointInterval !== undefined) args.push('--checkpoint-interval', String(b.checkpointInterval));
  let runningAt = NaN;
  const job = await createJobMaster({
    job: JOB,
    args,
    config: { 'parallelism.default': parallelism },
    taskManagers,
    log: createLogger({ level: 'error' }),
    listener: {
      onStatus: (s) => {
        if (s === 'RUNNING' && Number.isNaN(runningAt)) runningAt = performance.now();
      },
    },
  });
  const ended = job.run();
  return {
    job,
    counts,
    startedAt,
    get runningAt() {
      return runningAt;
    },
    stop: async () => {
      await job.cancel();
      await ended;
      counts.close();
    },
  };
}

/** Resolves once the job's source subtasks report that one of them follows the binlog (metrics refresh every 500 ms). */
async function untilFollowingBinlog(job: JobMaster): Promise<void> {
  const deadline = performance.now() + TIMEOUT_MS;
  while (!job.taskMetrics().some((m) => m.activity.kind === 'reading' && m.activity.reader?.startsWith('following the binlog') === true)) {
    if (performance.now() > deadline) throw new Error('timed out waiting for the source to follow the binlog');
    await new Promise((r) => setTimeout(r, 20));
  }
}

function enumeratorRate(job: JobMaster): number | null {
  for (const m of Object.values(job.sourceCoordinatorMetrics())) if (m.snapshot_rows_per_second !== undefined) return m.snapshot_rows_per_second;
  return null;
}

async function binlogEnd(sql: Sql): Promise<{ file: string; pos: number }> {
  const [rows] = await sql.query('SHOW MASTER STATUS');
  const row = (rows as Array<{ File: string; Position: number | string }>)[0];
  if (!row) throw new Error('SHOW MASTER STATUS returned nothing: is the binlog on?');
  return { file: row.File, pos: Number(row.Position) };
}

/**
 * Applies b.changes row updates as b.transactions transactions of b.statements UPDATE statements,
 * over the next range of ids; resolves with the time the last COMMIT returned.
 */
async function applyChanges(b: Bench): Promise<number> {
  const slots = Math.max(1, b.rows - b.changes);
  const first = ((b.batches++ * b.changes) % slots) + 1; // the first row (by sequence number) to change
  const total = b.transactions * b.statements;
  let changed = 0;
  for (let t = 0; t < b.transactions; t++) {
    await b.sql.beginTransaction();
    for (let s = 0; s < b.statements; s++) {
      const i = t * b.statements + s;
      const lo = first + Math.floor((i * b.changes) / total);
      const hi = first + Math.floor(((i + 1) * b.changes) / total);
      // Ids are 2 * sequence number.
      const [res] = await b.sql.query(
        `UPDATE test.${TABLE} SET amount = amount + 0.01, status = 'paid', updated = updated + INTERVAL 1 SECOND WHERE id >= ? AND id < ?`,
        [2 * lo, 2 * hi],
      );
      changed += (res as { affectedRows: number }).affectedRows;
    }
    await b.sql.commit();
  }
  const at = performance.now();
  if (changed !== b.changes) throw new Error(`the UPDATE statements changed ${changed} rows, expected ${b.changes}`);
  return at;
}

async function measureLive(b: Bench, run: RunningJob): Promise<LiveSample> {
  await untilFollowingBinlog(run.job);
  const before = run.counts.total().u;
  const cpu = cpuMeter(b.server);
  const t0 = performance.now();
  const seen = run.counts.until(`${fmtNumber(b.changes)} binlog changes`, run.job, (t) => t.u - before >= b.changes);
  const applied = await applyChanges(b);
  const end = await seen;
  const used = cpu();
  return {
    changes: b.changes,
    wallMs: end - t0,
    perSecond: b.changes / ((end - t0) / 1000),
    applyMs: applied - t0,
    tailMs: Math.max(0, end - applied),
    cpuMs: used.cpuMs,
    serverCpuMs: used.serverCpuMs,
  };
}

/** A snapshot job at this parallelism, then its live binlog phase. */
async function snapshotAndLive(b: Bench, id: 'p1' | 'p2', run: number): Promise<Sample> {
  const parallelism = id === 'p1' ? 1 : 2;
  const cpu = cpuMeter(b.server);
  const job = await startJob(b, parallelism, id === 'p1' ? 0 : 2, 'initial');
  try {
    const end = await job.counts.until(`${fmtNumber(b.rows)} snapshot rows`, job.job, (t) => t.r >= b.rows);
    const used = cpu();
    const rowsPerReader = job.counts.rowsBySubtask();
    const r = job.counts.total().r;
    if (r !== b.rows) throw new Error(`${id}: the sink saw ${r} snapshot rows, expected ${b.rows}`);
    const wallMs = end - job.startedAt;
    const rate = enumeratorRate(job.job);
    if (id === 'p1') b.p1ChangesAt.set(run, await binlogEnd(b.sql));
    const live = await measureLive(b, job);
    return {
      run,
      variant: id,
      records: b.rows,
      wallMs,
      perSecond: b.rows / (wallMs / 1000),
      fromRunningMs: end - job.runningAt,
      cpuMs: used.cpuMs,
      serverCpuMs: used.serverCpuMs,
      enumeratorRowsPerSecond: rate,
      rowsPerReader,
      live,
    };
  } finally {
    await job.stop();
  }
}

/** A fresh p1 job from the position before this run's p1 changes, until it has seen them all. */
async function catchUp(b: Bench, run: number): Promise<Sample> {
  const at = b.p1ChangesAt.get(run);
  if (!at) throw new Error('catch-up needs the p1 variant of the same run first');
  const cpu = cpuMeter(b.server);
  const job = await startJob(b, 1, 0, `${at.file}:${at.pos}`);
  try {
    const end = await job.counts.until(`${fmtNumber(b.changes)} binlog changes`, job.job, (t) => t.u >= b.changes);
    const used = cpu();
    const wallMs = end - job.startedAt;
    return {
      run,
      variant: 'catch-up',
      records: b.changes,
      wallMs,
      perSecond: b.changes / (wallMs / 1000),
      fromRunningMs: end - job.runningAt,
      cpuMs: used.cpuMs,
      serverCpuMs: used.serverCpuMs,
      enumeratorRowsPerSecond: null,
      rowsPerReader: null,
      live: null,
    };
  } finally {
    await job.stop();
  }
}

function plainTarget(b: Bench): PlainReadTarget {
  return { ...b.server.connectionOptions(), table: `test.${TABLE}` };
}

async function plain(b: Bench, run: number): Promise<Sample> {
  const cpu = cpuMeter(b.server);
  const { ms, value } = await timed(() => plainRead(plainTarget(b)));
  const used = cpu();
  if (value !== b.rows) throw new Error(`plain read counted ${value} rows, expected ${b.rows}`);
  return { run, variant: 'plain', records: value, wallMs: ms, perSecond: value / (ms / 1000), fromRunningMs: null, cpuMs: used.cpuMs, serverCpuMs: used.serverCpuMs, enumeratorRowsPerSecond: null, rowsPerReader: null, live: null };
}

/** Two plain reads at once, half of the keys each, in two worker threads. */
async function plainTwo(b: Bench, run: number): Promise<Sample> {
  // Ids are 2 * sequence number: below rows + 1 is the first half.
  const mid = b.rows + 1;
  let used = { cpuMs: NaN, serverCpuMs: NaN };
  const { ms, rows } = await plainReadsInWorkers(
    [
      { ...plainTarget(b), key: { column: 'id', from: null, to: mid } },
      { ...plainTarget(b), key: { column: 'id', from: mid, to: null } },
    ],
    () => {
      const cpu = cpuMeter(b.server);
      return () => (used = cpu());
    },
  );
  const total = rows.reduce((n, r) => n + r, 0);
  if (total !== b.rows) throw new Error(`the two plain reads counted ${total} rows, expected ${b.rows}`);
  return { run, variant: 'plain2', records: total, wallMs: ms, perSecond: total / (ms / 1000), fromRunningMs: null, cpuMs: used.cpuMs, serverCpuMs: used.serverCpuMs, enumeratorRowsPerSecond: null, rowsPerReader: rows, live: null };
}

const LABELS: Record<VariantId, string> = {
  plain: 'plain SELECT * (mysql2 stream)',
  plain2: 'plain x2 (2 threads, half each)',
  p1: 'CDC snapshot p1 (in-thread)',
  p2: 'CDC snapshot p2 (2 worker TMs)',
  'catch-up': 'binlog catch-up p1',
};

/** The run's variants, rotated; catch-up needs p1 of the same run, so it stays after it. */
function runOrder(variants: readonly VariantId[], run: number): VariantId[] {
  const main = variants.filter((v) => v !== 'catch-up');
  const k = run % Math.max(1, main.length);
  const order: VariantId[] = [...main.slice(k), ...main.slice(0, k)];
  if (variants.includes('catch-up')) order.splice(order.indexOf('p1') + 1, 0, 'catch-up');
  return order;
}

function runsColumn(samples: readonly Sample[], value: (s: Sample) => number): string {
  return samples.map((s) => fmtNumber(value(s))).join(' / ');
}

export const cdc: Scenario = {
  name: 'cdc',
  description: `MySQL/MariaDB and PostgreSQL CDC on private servers: snapshot rows/s at p1 and p2 vs a plain streaming SELECT, binlog changes/s live and catching up (default ${fmtNumber(DEFAULT_RECORDS)} rows, ${fmtNumber(DEFAULT_CHANGES)} changes)`,
  // Each run loads the server for about 20 s; three keep a whole run under ~3 minutes.
  defaultRuns: 3,
  flags: {
    changes: `row changes applied in each binlog measurement (default ${fmtNumber(DEFAULT_CHANGES)})`,
    transactions: 'transactions the changes are applied in (default 4)',
    statements: 'multi-row UPDATE statements per transaction (default 5)',
    'chunk-size': "the source's snapshot chunk size (default: the source's own, 8096)",
    'checkpoint-interval': 'run the jobs with exactly-once checkpoints at this interval, ms (default: checkpointing off)',
    only: 'comma-separated variants: plain,plain2,p1,p2,catch-up (default all; catch-up needs p1)',
    warmup: 'an unmeasured plain read and p1 snapshot first (default on; --warmup false to skip)',
    dialect: 'mariadb, postgres or both (default both: the PostgreSQL tables follow the MariaDB ones)',
    'pg-only': 'comma-separated PostgreSQL variants: copy,chunks,copy2,p1,p2,wal (default all)',
  },

  async run(options): Promise<ScenarioResult> {
    const dialect = options.flags.dialect ?? 'both';
    if (!['mariadb', 'postgres', 'both'].includes(dialect)) throw new Error(`--dialect must be mariadb, postgres or both, got '${dialect}'`);
    const pg = dialect === 'mariadb' ? undefined : () => runPostgres(options);
    if (dialect === 'postgres') {
      const r = await pg!();
      return { table: r.tables[0]!.table, extraTables: r.tables.slice(1), notes: r.notes, data: { postgres: r.data } };
    }
    const mariadb = await runMariaDb(options);
    if (!pg) return mariadb;
    const r = await pg();
    return { ...mariadb, extraTables: [...(mariadb.extraTables ?? []), ...r.tables], notes: [...(mariadb.notes ?? []), ...r.notes], data: { ...mariadb.data, postgres: r.data } };
  },
};

function runPostgres(options: ScenarioOptions): ReturnType<typeof runPostgresCdc> {
  const only = options.flags['pg-only']?.split(',').map((s) => s.trim());
  const variants = only ? PG_VARIANTS.filter((v) => only.includes(v)) : PG_VARIANTS;
  if (variants.length === 0) throw new Error(`--pg-only matched no variant (have: ${PG_VARIANTS.join(', ')})`);
  const rows = options.records ?? DEFAULT_RECORDS;
  return runPostgresCdc(
    {
      rows,
      changes: Math.min(intFlag(options, 'changes', DEFAULT_CHANGES), rows),
      transactions: intFlag(options, 'transactions', 4),
      statements: intFlag(options, 'statements', 5),
      checkpointInterval: options.flags['checkpoint-interval'] !== undefined ? intFlag(options, 'checkpoint-interval', 1000) : undefined,
      variants,
      warmup: options.flags.warmup === undefined || options.flags.warmup !== 'false',
    },
    options.runs,
    options.log,
  );
}

async function runMariaDb(options: ScenarioOptions): Promise<ScenarioResult> {
  const { log, runs } = options;
  const rows = options.records ?? DEFAULT_RECORDS;
  const changes = Math.min(intFlag(options, 'changes', DEFAULT_CHANGES), rows);
  const transactions = intFlag(options, 'transactions', 4);
  const statements = intFlag(options, 'statements', 5);
  const chunkSize = options.flags['chunk-size'] !== undefined ? intFlag(options, 'chunk-size', 8096) : undefined;
  const checkpointInterval = options.flags['checkpoint-interval'] !== undefined ? intFlag(options, 'checkpoint-interval', 1000) : undefined;
  const warmup = options.flags.warmup === undefined || options.flags.warmup !== 'false';
  const all: VariantId[] = ['plain', 'plain2', 'p1', 'p2', 'catch-up'];
  const only = options.flags.only?.split(',').map((s) => s.trim());
  const variants = only ? all.filter((v) => only.includes(v)) : all;
  if (variants.length === 0) throw new Error(`--only matched no variant (have: ${all.join(', ')})`);
  if (variants.includes('catch-up') && !variants.includes('p1')) throw new Error('catch-up replays the p1 job\'s changes: include p1');

  const server = await startMariaDb();
  log(`private MariaDB on 127.0.0.1:${server.port} started in ${server.startMs} ms`);
  const sql = await connect(server);
  try {
    const load = await timed(async () => {
      await createOrders(sql, TABLE, rows);
      // Fresh statistics: the source sizes its chunks from information_schema.TABLES.TABLE_ROWS.
      await sql.query(`ANALYZE TABLE ${TABLE}`);
    });
    const [[size]] = (await sql.query(
      `SELECT DATA_LENGTH AS data, TABLE_ROWS AS estimate FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'test' AND TABLE_NAME = ?`,
      [TABLE],
    )) as unknown as [[{ data: string; estimate: string }]];
    const dataMb = Number(size.data) / 2 ** 20;
    log(`loaded ${fmtNumber(rows)} rows into test.${TABLE} in ${fmtMs(load.ms)} (InnoDB data ${dataMb.toFixed(0)} MB, TABLE_ROWS estimate ${fmtNumber(Number(size.estimate))})`);
    const b: Bench = { server, sql, rows, changes, transactions, statements, chunkSize, checkpointInterval, batches: 0, p1ChangesAt: new Map() };

    if (warmup) {
      log('warm-up: one plain read and one p1 snapshot (buffer pool, JIT, tsx cache), not measured');
      await plainRead(plainTarget(b));
      if (variants.includes('p1') || variants.includes('p2')) {
        const job = await startJob(b, 1, 0, 'initial');
        await job.counts.until('the warm-up snapshot', job.job, (t) => t.r >= rows);
        await job.stop();
      }
    }

    const samples: Sample[] = [];
    for (let run = 0; run < runs; run++) {
      for (const v of runOrder(variants, run)) {
        await settle();
        const s = v === 'plain' ? await plain(b, run) : v === 'plain2' ? await plainTwo(b, run) : v === 'catch-up' ? await catchUp(b, run) : await snapshotAndLive(b, v, run);
        samples.push(s);
        const unit = v === 'catch-up' ? 'changes/s' : 'rows/s';
        log(`run ${run + 1}/${runs} ${LABELS[v].padEnd(32)} ${fmtNumber(s.perSecond).padStart(10)} ${unit}  ${fmtMs(s.wallMs)}`);
        if (s.rowsPerReader && s.rowsPerReader.length > 1) log(`run ${run + 1}/${runs} ${''.padEnd(32)} rows per reader: ${s.rowsPerReader.map((n) => fmtNumber(n)).join(' / ')}`);
        if (s.live) log(`run ${run + 1}/${runs} ${`binlog live (${v} job)`.padEnd(32)} ${fmtNumber(s.live.perSecond).padStart(10)} changes/s  ${fmtMs(s.live.wallMs)} (server applied them in ${fmtMs(s.live.applyMs)})`);
      }
    }

    const of = (id: VariantId) => samples.filter((s) => s.variant === id);
    const rate = (id: VariantId): Summary | undefined => (of(id).length > 0 ? summarize(of(id).map((s) => s.perSecond)) : undefined);
    const paired = (a: VariantId, c: VariantId): Summary | undefined => {
      const ratios: number[] = [];
      for (let run = 0; run < runs; run++) {
        const x = samples.find((s) => s.run === run && s.variant === a);
        const y = samples.find((s) => s.run === run && s.variant === c);
        if (x && y) ratios.push(x.perSecond / y.perSecond);
      }
      return ratios.length > 0 ? summarize(ratios) : undefined;
    };
    const p1VsPlain = paired('p1', 'plain');
    const p2VsP1 = paired('p2', 'p1');
    const plain2VsPlain = paired('plain2', 'plain');
    // The same ratio without the job's start-up (worker TaskManagers take most of a second to load the job).
    const p2VsP1FromRunning = (() => {
      const ratios: number[] = [];
      for (let run = 0; run < runs; run++) {
        const x = samples.find((s) => s.run === run && s.variant === 'p2');
        const y = samples.find((s) => s.run === run && s.variant === 'p1');
        if (x?.fromRunningMs && y?.fromRunningMs) ratios.push(y.fromRunningMs / x.fromRunningMs);
      }
      return ratios.length > 0 ? summarize(ratios) : undefined;
    })();
    const plainRate = rate('plain')?.median;

    const snapshotVariants = variants.filter((v) => v !== 'catch-up');
    const table: Table = {
      columns: ['snapshot of ' + fmtNumber(rows) + ' rows', 'rows/s (median)', 'all runs', 'wall (median)', 'vs plain', 'to RUNNING', 'rows/s from RUNNING', 'CPU ms (node)', 'CPU ms (server)'],
      rows: snapshotVariants.map((v) => {
        const ss = of(v);
        const r = summarize(ss.map((s) => s.perSecond));
        const running = ss.every((s) => s.fromRunningMs !== null) ? summarize(ss.map((s) => s.records / (s.fromRunningMs! / 1000))).median : NaN;
        return [
          LABELS[v],
          fmtNumber(r.median),
          runsColumn(ss, (s) => s.perSecond),
          fmtMs(summarize(ss.map((s) => s.wallMs)).median),
          plainRate ? fmtRatio(r.median / plainRate) : '-',
          ss.every((s) => s.fromRunningMs !== null) ? fmtMs(summarize(ss.map((s) => s.wallMs - s.fromRunningMs!)).median) : '-',
          Number.isFinite(running) ? fmtNumber(running) : '-',
          fmtNumber(summarize(ss.map((s) => s.cpuMs)).median),
          fmtNumber(summarize(ss.map((s) => s.serverCpuMs)).median),
        ];
      }),
    };

    const binlogRows: string[][] = [];
    for (const v of ['p1', 'p2'] as const) {
      const lives = of(v).map((s) => s.live!);
      if (lives.length === 0) continue;
      binlogRows.push([
        `live, in the ${v} job`,
        fmtNumber(summarize(lives.map((l) => l.perSecond)).median),
        lives.map((l) => fmtNumber(l.perSecond)).join(' / '),
        fmtMs(summarize(lives.map((l) => l.wallMs)).median),
        fmtMs(summarize(lives.map((l) => l.applyMs)).median),
        fmtMs(summarize(lives.map((l) => l.tailMs)).median),
        fmtNumber(summarize(lives.map((l) => l.cpuMs)).median),
        fmtNumber(summarize(lives.map((l) => l.serverCpuMs)).median),
      ]);
    }
    const catchUps = of('catch-up');
    if (catchUps.length > 0) {
      binlogRows.push([
        'catch-up, fresh p1 job from FILE:POS',
        fmtNumber(summarize(catchUps.map((s) => s.perSecond)).median),
        runsColumn(catchUps, (s) => s.perSecond),
        fmtMs(summarize(catchUps.map((s) => s.wallMs)).median),
        '-',
        '-',
        fmtNumber(summarize(catchUps.map((s) => s.cpuMs)).median),
        fmtNumber(summarize(catchUps.map((s) => s.serverCpuMs)).median),
      ]);
    }
    const extraTables =
      binlogRows.length > 0
        ? [
            {
              title: `Binlog phase: ${fmtNumber(changes)} row changes (${transactions} transactions x ${statements} multi-row UPDATEs)`,
              table: {
                columns: ['binlog', 'changes/s (median)', 'all runs', 'wall (median)', 'server apply', 'tail after COMMIT', 'CPU ms (node)', 'CPU ms (server)'],
                rows: binlogRows,
              } satisfies Table,
            },
          ]
        : [];

    const goal = (name: string, r: Summary | undefined, target: number) =>
      r ? `${name}: ${fmtRatio(r.median)} median of per-run ratios (runs: ${r.samples.map(fmtRatio).join(', ')}), goal >= ${target}x: ${r.median >= target ? 'met' : 'NOT met'}` : undefined;
    const notes = [
      `${fmtNumber(rows)} rows of createOrders (id INT PK, customer VARCHAR, amount DECIMAL(12,2), big BIGINT, status VARCHAR, updated DATETIME(3); ${dataMb.toFixed(0)} MB InnoDB data), loaded in ${fmtMs(load.ms)}; ${runs} runs, variants interleaved in rotating order`,
      `snapshot rows/s = rows / wall time from createJobMaster() until the counting sink reported every row (an event on a BroadcastChannel, once per event-loop turn); startup mode initial, chunk size ${chunkSize ?? 8096}, ${checkpointInterval === undefined ? 'checkpointing off' : `exactly-once checkpoints every ${checkpointInterval} ms`}`,
      `binlog live = changes / time from the first BEGIN until the sink saw every change; the server's own time to apply them is 'server apply'; catch-up includes the job's startup`,
      `CPU ms (node) is this process, worker threads included; CPU ms (server) is mariadbd's, from /proc`,
      goal('snapshot p1 / plain', p1VsPlain, GOAL_P1_VS_PLAIN),
      goal('snapshot p2 / p1', p2VsP1, GOAL_P2_VS_P1),
      plain2VsPlain
        ? `plain x2 / plain (two reads on two threads vs one: what a second reader can gain on this machine at best): ${fmtRatio(plain2VsPlain.median)} median (runs: ${plain2VsPlain.samples.map(fmtRatio).join(', ')})`
        : undefined,
      p2VsP1FromRunning
        ? `snapshot p2 / p1 from RUNNING (without the job's start-up): ${fmtRatio(p2VsP1FromRunning.median)} median (runs: ${p2VsP1FromRunning.samples.map(fmtRatio).join(', ')})`
        : undefined,
    ].filter((n): n is string => n !== undefined);

    return {
      table,
      extraTables,
      notes,
      data: {
        settings: { rows, changes, transactions, statements, chunkSize: chunkSize ?? 8096, checkpointInterval: checkpointInterval ?? null, variants, job: JOB, warmup, loadMs: load.ms, dataMb, serverStartMs: server.startMs },
        summary: Object.fromEntries(
          variants.map((v) => [
            v,
            {
              label: LABELS[v],
              perSecond: rate(v),
              wallMs: summarize(of(v).map((s) => s.wallMs)),
              live: of(v)[0]?.live ? summarize(of(v).map((s) => s.live!.perSecond)) : null,
            },
          ]),
        ),
        ratios: { p1VsPlain: p1VsPlain ?? null, p2VsP1: p2VsP1 ?? null, plain2VsPlain: plain2VsPlain ?? null, p2VsP1FromRunning: p2VsP1FromRunning ?? null, goals: { p1VsPlain: GOAL_P1_VS_PLAIN, p2VsP1: GOAL_P2_VS_P1 } },
        samples,
      },
    };
  } finally {
    await sql.end();
    await server.stop();
  }
}
