// The PostgreSQL half of scenario `cdc`: PostgresCdcSource's snapshot against a plain COPY of the
// same table through the same client, its speed-up from a second reader beside the machine's
// two-thread ceiling, and its WAL phase against a bare replication-stream reader.
//
// One private PostgreSQL (test/fixtures/postgres-server.ts: installed binaries, temp dir,
// wal_level=logical) holds `public.orders`, made by createPgOrders (test/fixtures/pg-cdc-workload.ts):
// N rows of (id int PRIMARY KEY = 2, 4, ..., customer text, amount numeric(12,2), big int8 with
// every 7th NULL, status text, updated timestamp(3), note text: 2 KB+ on every 50th row, else NULL).
//
//   copy      COPY (SELECT * FROM public.orders) TO STDOUT through pg, chunks taken as they come,
//             rows counted by newlines (pg-copy-out.ts): no decoding at all
//   chunks    the same table by plain `COPY (SELECT * ... WHERE id >= a AND id < b) TO STDOUT` of
//             8096 rows each, in key order, rows counted undecoded: the server's share of the
//             source's chunk reads (which are such COPYs, their rows decoded as they arrive)
//   copy2     two such COPYs at once, half of the keys each, in two worker threads, timed from when
//             both are connected: the most a second reader can gain on this machine
//   p1        the CDC job (bench/jobs/pg-cdc-bench.ts: source -> counting sink, startup initial,
//             chunk size 8096, checkpointing off unless --checkpoint-interval) at parallelism 1,
//             in this thread
//   p2        the same at parallelism 2 on two worker-thread TaskManagers
//   wal       C row updates (T transactions of S multi-row UPDATEs) written while no one reads,
//             after two fresh slots were made: `bare` reads them from one slot with the source's
//             own ReplicationStream (START_REPLICATION, pgoutput decoded to messages, updates
//             counted: no assembly, no types, no engine); `weir` starts a p1 job with startup
//             committed-offset on the other and times it until the sink saw every update.
//
// Snapshot rows/s = N / wall time from createJobMaster() until the sinks reported all N 'r'
// records. Ratios are taken within a run; the median over runs is reported.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { createJobMaster, createLogger } from '../../src/index.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import { ReplicationConnection } from '../../src/connectors/postgres/replication-connection.ts';
import { startPostgres, type PostgresServer } from '../../test/fixtures/postgres-server.ts';
import { connectPg, createPgOrders } from '../../test/fixtures/pg-cdc-workload.ts';
import { BENCH_DIR, fmtMs, fmtNumber, fmtRatio, settle, summarize, timed, type ScenarioOptions, type Summary, type Table } from '../harness.ts';
import { copyOut, copyOutsInWorkers, plainCopyOut, type CopyOutTarget } from './pg-copy-out.ts';
import { SinkCounts } from './cdc-sink-counts.ts';

const JOB = join(BENCH_DIR, 'jobs', 'pg-cdc-bench.ts');
const TABLE = 'orders';
const PUBLICATION = 'weir_bench_pub';
const GOAL_P1_VS_COPY = 0.7;

type PgVariant = 'copy' | 'chunks' | 'copy2' | 'p1' | 'p2' | 'wal';
const LABELS: Record<PgVariant, string> = {
  copy: 'plain COPY TO STDOUT (pg)',
  chunks: 'plain COPYs of 8096-row key ranges',
  copy2: 'plain COPY x2 (2 threads, half each)',
  p1: 'CDC snapshot p1 (in-thread)',
  p2: 'CDC snapshot p2 (2 worker TMs)',
  wal: 'WAL catch-up',
};

interface PgSample {
  readonly run: number;
  readonly variant: Exclude<PgVariant, 'wal'>;
  readonly rows: number;
  readonly wallMs: number;
  readonly perSecond: number;
  readonly fromRunningMs: number | null;
}

interface WalSample {
  readonly run: number;
  readonly changes: number;
  readonly bareMs: number;
  readonly weirMs: number;
  readonly weirFromRunningMs: number;
}

interface PgBench {
  readonly server: PostgresServer;
  readonly sql: pg.Client;
  readonly rows: number;
  readonly changes: number;
  readonly transactions: number;
  readonly statements: number;
  readonly checkpointInterval: number | undefined;
  batches: number;
}

export interface PgCdcOptions {
  readonly rows: number;
  readonly changes: number;
  readonly transactions: number;
  readonly statements: number;
  readonly checkpointInterval: number | undefined;
  readonly variants: readonly PgVariant[];
  readonly warmup: boolean;
}

export const PG_VARIANTS: readonly PgVariant[] = ['copy', 'chunks', 'copy2', 'p1', 'p2', 'wal'];

function target(b: PgBench, key?: CopyOutTarget['key']): CopyOutTarget {
  return { ...b.server.connectionOptions(), table: `public.${TABLE}`, ...(key ? { key } : {}) };
}

async function runJob(b: PgBench, o: { parallelism: number; taskManagers: number; startup: 'initial' | 'committed-offset'; slot: string }, done: (t: { r: number; u: number }) => boolean, what: string) {
  const channel = `weir-bench-pgcdc-${randomBytes(6).toString('hex')}`;
  const counts = new SinkCounts(channel);
  const c = b.server.connectionOptions();
  const args = ['--host', c.host, '--port', String(c.port), '--user', c.user, '--password', c.password, '--database', c.database, '--table', `public.${TABLE}`,
    '--slot', o.slot, '--publication', PUBLICATION, '--channel', channel, '--startup', o.startup];
  if (b.checkpointInterval !== undefined) args.push('--checkpoint-interval', String(b.checkpointInterval));
  let runningAt = NaN;
  const startedAt = performance.now();
  const job: JobMaster = await createJobMaster({
    job: JOB,
    args,
    config: { 'parallelism.default': o.parallelism },
    taskManagers: o.taskManagers,
    log: createLogger({ level: 'error' }),
    listener: { onStatus: (s) => void (s === 'RUNNING' && Number.isNaN(runningAt) && (runningAt = performance.now())) },
  });
  const ended = job.run();
  try {
    const at = await counts.until(what, job, done);
    return { wallMs: at - startedAt, fromRunningMs: at - runningAt };
  } finally {
    await job.cancel();
    await ended;
    counts.close();
  }
}

async function snapshot(b: PgBench, v: 'p1' | 'p2', run: number): Promise<PgSample> {
  const slot = `bench_${v}_${run < 0 ? 'warmup' : run}`;
  const r = await runJob(b, { parallelism: v === 'p1' ? 1 : 2, taskManagers: v === 'p1' ? 0 : 2, startup: 'initial', slot }, (t) => t.r >= b.rows, `${b.rows} snapshot rows`);
  await dropSlot(b, slot);
  return { run, variant: v, rows: b.rows, wallMs: r.wallMs, perSecond: b.rows / (r.wallMs / 1000), fromRunningMs: r.fromRunningMs };
}

async function dropSlot(b: PgBench, slot: string): Promise<void> {
  await b.sql.query('SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1', [slot]);
}

/** b.changes row updates as b.transactions transactions of b.statements UPDATEs over the next range of ids. */
async function applyChanges(b: PgBench): Promise<number> {
  const slots = Math.max(1, b.rows - b.changes);
  const first = ((b.batches++ * b.changes) % slots) + 1;
  const total = b.transactions * b.statements;
  let changed = 0;
  for (let t = 0; t < b.transactions; t++) {
    await b.sql.query('BEGIN');
    for (let s = 0; s < b.statements; s++) {
      const i = t * b.statements + s;
      const lo = first + Math.floor((i * b.changes) / total);
      const hi = first + Math.floor(((i + 1) * b.changes) / total);
      const res = await b.sql.query(`UPDATE ${TABLE} SET amount = amount + 0.01, status = 'paid', updated = updated + interval '1 second' WHERE id >= $1 AND id < $2`, [2 * lo, 2 * hi]);
      changed += res.rowCount ?? 0;
    }
    await b.sql.query('COMMIT');
  }
  return changed;
}

/** Reads `changes` updates from `slot` with the source's ReplicationStream alone; the wall time from connecting. */
async function bareRead(b: PgBench, slot: string, changes: number): Promise<number> {
  const start = performance.now();
  const conn = await ReplicationConnection.connect(b.server.connectionOptions());
  try {
    const stream = await conn.stream({ slot, publication: PUBLICATION, start: 0n });
    let updates = 0;
    while (updates < changes) {
      const ev = stream.next();
      if (ev === undefined) {
        await stream.available();
        continue;
      }
      if (ev.kind === 'message' && ev.message.tag === 'update') updates++;
    }
    return performance.now() - start;
  } finally {
    await conn.close();
  }
}

async function wal(b: PgBench, run: number): Promise<WalSample> {
  const bare = `bench_bare_${run}`;
  const weir = `bench_cu_${run}`;
  for (const s of [bare, weir]) await b.sql.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [s]);
  const changes = await applyChanges(b);
  // Alternate which reads first: the second finds the WAL in the page cache.
  const readBare = () => bareRead(b, bare, changes);
  const readWeir = () => runJob(b, { parallelism: 1, taskManagers: 0, startup: 'committed-offset', slot: weir }, (t) => t.u >= changes, `${changes} WAL updates`);
  let bareMs: number;
  let w: { wallMs: number; fromRunningMs: number };
  if (run % 2 === 0) {
    bareMs = await readBare();
    await settle();
    w = await readWeir();
  } else {
    w = await readWeir();
    await settle();
    bareMs = await readBare();
  }
  for (const s of [bare, weir]) await dropSlot(b, s);
  return { run, changes, bareMs, weirMs: w.wallMs, weirFromRunningMs: w.fromRunningMs };
}

async function copyOne(b: PgBench, run: number): Promise<PgSample> {
  const { ms, value } = await timed(() => plainCopyOut(target(b)));
  if (value !== b.rows) throw new Error(`COPY counted ${value} rows, expected ${b.rows}`);
  return { run, variant: 'copy', rows: value, wallMs: ms, perSecond: value / (ms / 1000), fromRunningMs: null };
}

/**
 * The table by key-range COPYs of 8096 rows through pg, one after another, rows counted undecoded:
 * what the server's side of the source's chunked read costs (its COPYs are of the same ranges).
 */
async function chunks(b: PgBench, run: number): Promise<PgSample> {
  const client = new pg.Client(b.server.connectionOptions());
  await client.connect();
  try {
    const { ms, value } = await timed(async () => {
      let n = 0;
      // Ids are 2 * sequence number: 8096 rows per 16192 keys.
      for (let lo = 0; lo <= b.rows * 2; lo += 16_192) n += await copyOut(client, `COPY (SELECT * FROM ${TABLE} WHERE id >= ${lo} AND id < ${lo + 16_192}) TO STDOUT`);
      return n;
    });
    if (value !== b.rows) throw new Error(`the chunked COPYs counted ${value} rows, expected ${b.rows}`);
    return { run, variant: 'chunks', rows: value, wallMs: ms, perSecond: value / (ms / 1000), fromRunningMs: null };
  } finally {
    await client.end();
  }
}

async function copyTwo(b: PgBench, run: number): Promise<PgSample> {
  const mid = b.rows + 1; // ids are 2 * sequence number
  const { ms, rows } = await copyOutsInWorkers([target(b, { column: 'id', from: null, to: mid }), target(b, { column: 'id', from: mid, to: null })]);
  const total = rows.reduce((n, r) => n + r, 0);
  if (total !== b.rows) throw new Error(`the two COPYs counted ${total} rows, expected ${b.rows}`);
  return { run, variant: 'copy2', rows: total, wallMs: ms, perSecond: total / (ms / 1000), fromRunningMs: null };
}

/** The PostgreSQL measurements of scenario `cdc`: tables and notes to print beside the MariaDB ones. */
export async function runPostgresCdc(o: PgCdcOptions, runs: number, log: (line: string) => void): Promise<{ tables: Array<{ title: string; table: Table }>; notes: string[]; data: Record<string, unknown> }> {
  const server = await startPostgres();
  log(`private PostgreSQL on 127.0.0.1:${server.port} started in ${server.startMs} ms`);
  const sql = await connectPg(server);
  try {
    const load = await timed(async () => {
      await createPgOrders(sql, TABLE, o.rows);
      await sql.query(`VACUUM ANALYZE ${TABLE}`);
      await sql.query(`CREATE PUBLICATION ${PUBLICATION} FOR TABLE ${TABLE} WITH (publish_via_partition_root = true)`);
    });
    const [size] = (await sql.query(`SELECT pg_table_size('${TABLE}')::int8::text AS bytes`)).rows as Array<{ bytes: string }>;
    const dataMb = Number(size!.bytes) / 2 ** 20;
    log(`loaded ${fmtNumber(o.rows)} rows into public.${TABLE} in ${fmtMs(load.ms)} (${dataMb.toFixed(0)} MB with TOAST)`);
    const b: PgBench = { server, sql, rows: o.rows, changes: Math.min(o.changes, o.rows), transactions: o.transactions, statements: o.statements, checkpointInterval: o.checkpointInterval, batches: 0 };

    if (o.warmup) {
      log('postgres warm-up: one COPY and one p1 snapshot (page cache, JIT), not measured');
      await plainCopyOut(target(b));
      if (o.variants.includes('p1') || o.variants.includes('p2')) await snapshot(b, 'p1', -1);
    }

    const samples: PgSample[] = [];
    const wals: WalSample[] = [];
    const snapshotVariants = o.variants.filter((v): v is Exclude<PgVariant, 'wal'> => v !== 'wal');
    for (let run = 0; run < runs; run++) {
      const k = run % Math.max(1, snapshotVariants.length);
      for (const v of [...snapshotVariants.slice(k), ...snapshotVariants.slice(0, k)]) {
        await settle();
        const s = v === 'copy' ? await copyOne(b, run) : v === 'chunks' ? await chunks(b, run) : v === 'copy2' ? await copyTwo(b, run) : await snapshot(b, v, run);
        samples.push(s);
        log(`postgres run ${run + 1}/${runs} ${LABELS[v].padEnd(36)} ${fmtNumber(s.perSecond).padStart(10)} rows/s  ${fmtMs(s.wallMs)}`);
      }
      if (o.variants.includes('wal')) {
        await settle();
        const w = await wal(b, run);
        wals.push(w);
        log(`postgres run ${run + 1}/${runs} WAL ${fmtNumber(w.changes)} updates: bare reader ${fmtNumber(w.changes / (w.bareMs / 1000))}/s (${fmtMs(w.bareMs)}), weir p1 ${fmtNumber(w.changes / (w.weirMs / 1000))}/s (${fmtMs(w.weirMs)}; ${fmtMs(w.weirFromRunningMs)} from RUNNING)`);
      }
    }

    const of = (v: PgVariant) => samples.filter((s) => s.variant === v);
    const paired = (x: PgVariant, y: PgVariant): Summary | undefined => {
      const ratios: number[] = [];
      for (let run = 0; run < runs; run++) {
        const a = samples.find((s) => s.run === run && s.variant === x);
        const c = samples.find((s) => s.run === run && s.variant === y);
        if (a && c) ratios.push(a.perSecond / c.perSecond);
      }
      return ratios.length > 0 ? summarize(ratios) : undefined;
    };
    const copyRate = of('copy').length > 0 ? summarize(of('copy').map((s) => s.perSecond)).median : undefined;
    const snapshotTable: Table = {
      columns: [`snapshot of ${fmtNumber(o.rows)} rows`, 'rows/s (median)', 'all runs', 'wall (median)', 'vs COPY', 'rows/s from RUNNING'],
      rows: snapshotVariants.map((v) => {
        const ss = of(v);
        const r = summarize(ss.map((s) => s.perSecond));
        const running = ss.every((s) => s.fromRunningMs !== null) ? fmtNumber(summarize(ss.map((s) => s.rows / (s.fromRunningMs! / 1000))).median) : '-';
        return [LABELS[v], fmtNumber(r.median), ss.map((s) => fmtNumber(s.perSecond)).join(' / '), fmtMs(summarize(ss.map((s) => s.wallMs)).median), copyRate ? fmtRatio(r.median / copyRate) : '-', running];
      }),
    };
    const walTable: Table | undefined =
      wals.length > 0
        ? {
            columns: [`WAL: ${fmtNumber(b.changes)} updates (${o.transactions} tx x ${o.statements} UPDATEs), read from a slot`, 'changes/s (median)', 'all runs', 'wall (median)'],
            rows: [
              ['bare ReplicationStream (pgoutput messages)', fmtNumber(summarize(wals.map((w) => w.changes / (w.bareMs / 1000))).median), wals.map((w) => fmtNumber(w.changes / (w.bareMs / 1000))).join(' / '), fmtMs(summarize(wals.map((w) => w.bareMs)).median)],
              ['weir p1 job, committed-offset (from createJobMaster)', fmtNumber(summarize(wals.map((w) => w.changes / (w.weirMs / 1000))).median), wals.map((w) => fmtNumber(w.changes / (w.weirMs / 1000))).join(' / '), fmtMs(summarize(wals.map((w) => w.weirMs)).median)],
              ['weir p1 job, from RUNNING', fmtNumber(summarize(wals.map((w) => w.changes / (w.weirFromRunningMs / 1000))).median), wals.map((w) => fmtNumber(w.changes / (w.weirFromRunningMs / 1000))).join(' / '), fmtMs(summarize(wals.map((w) => w.weirFromRunningMs)).median)],
            ],
          }
        : undefined;
    const p1VsCopy = paired('p1', 'copy');
    const p1VsChunks = paired('p1', 'chunks');
    const chunksVsCopy = paired('chunks', 'copy');
    const p2VsP1 = paired('p2', 'p1');
    const copy2VsCopy = paired('copy2', 'copy');
    const walRatio = wals.length > 0 ? summarize(wals.map((w) => w.bareMs / w.weirFromRunningMs)) : undefined;
    const notes = [
      `PostgreSQL: ${fmtNumber(o.rows)} rows of createPgOrders (${dataMb.toFixed(0)} MB with TOAST), loaded in ${fmtMs(load.ms)}; ${runs} runs, variants interleaved in rotating order; chunk size 8096, ${o.checkpointInterval === undefined ? 'checkpointing off' : `exactly-once checkpoints every ${o.checkpointInterval} ms`}`,
      p1VsCopy ? `postgres snapshot p1 / COPY: ${fmtRatio(p1VsCopy.median)} median of per-run ratios (runs: ${p1VsCopy.samples.map(fmtRatio).join(', ')}), goal >= ${GOAL_P1_VS_COPY}x: ${p1VsCopy.median >= GOAL_P1_VS_COPY ? 'met' : 'NOT met'}` : undefined,
      p1VsChunks && chunksVsCopy
        ? `postgres: what limits p1: the server sends the chunks' key ranges (COPYs of 8096 rows, undecoded) at ${fmtRatio(chunksVsCopy.median)} of one COPY (runs: ${chunksVsCopy.samples.map(fmtRatio).join(', ')}); p1 / those chunked COPYs: ${fmtRatio(p1VsChunks.median)} (runs: ${p1VsChunks.samples.map(fmtRatio).join(', ')}) is what decoding, the merge and the engine leave`
        : undefined,
      p2VsP1 && copy2VsCopy
        ? `postgres snapshot p2 / p1: ${fmtRatio(p2VsP1.median)} (runs: ${p2VsP1.samples.map(fmtRatio).join(', ')}) beside the two-thread ceiling COPY x2 / COPY: ${fmtRatio(copy2VsCopy.median)} (runs: ${copy2VsCopy.samples.map(fmtRatio).join(', ')})`
        : undefined,
      walRatio ? `postgres WAL: weir p1 (from RUNNING) / bare ReplicationStream: ${fmtRatio(walRatio.median)} median (runs: ${walRatio.samples.map(fmtRatio).join(', ')})` : undefined,
    ].filter((n): n is string => n !== undefined);
    return {
      tables: [{ title: 'PostgreSQL snapshot', table: snapshotTable }, ...(walTable ? [{ title: 'PostgreSQL WAL', table: walTable }] : [])],
      notes,
      data: { settings: { ...o, loadMs: load.ms, dataMb, serverStartMs: server.startMs, job: JOB }, samples, wals, ratios: { p1VsCopy: p1VsCopy ?? null, p1VsChunks: p1VsChunks ?? null, chunksVsCopy: chunksVsCopy ?? null, p2VsP1: p2VsP1 ?? null, copy2VsCopy: copy2VsCopy ?? null, walRatio: walRatio ?? null } },
    };
  } finally {
    await sql.end();
    await server.stop();
  }
}

export type { ScenarioOptions };
