// PostgresCdcSource through failures, record for record: the snapshot and the WAL with injected
// failures while the table changes (the committed change stream materialized equals SELECT *), and
// a fixed WAL history read by a run with failures and a failure-free run (the same lines). The
// database restarted under a running job, and SIGKILL + resume, are in postgres-cdc-failover.long.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type pg from 'pg';
import { createJobMaster, createLogger } from '../../src/index.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import type { FaultInjectionOptions } from '../../src/coordinator/fault-injector.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { assertPgChangeStreamMatchesTable, committedPgMarker, connectPg, createPgOrders, runPgWorkload } from '../fixtures/pg-cdc-workload.ts';
import { parsePgChangeLines } from '../fixtures/pg-cdc-records.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'pg-cdc-to-files.ts');

describe('PostgresCdcSource, exactly once', () => {
  let server: PostgresServer;
  let sql: pg.Client;
  let root: string;
  let runs = 0;

  interface Started {
    readonly job: JobMaster;
    readonly events: JobEvents;
    readonly output: string;
    readonly running: Promise<unknown>;
  }

  async function startJob(o: { tables: string; slot: string; startup: string; faults?: FaultInjectionOptions; chunkSize?: number }): Promise<Started> {
    const dir = join(root, `run-${++runs}`);
    const output = join(dir, 'output');
    const events = new JobEvents();
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', output, '--tables', o.tables, '--slot', o.slot, '--publication', `pub_${o.slot}`,
        '--startup', o.startup, '--chunk-size', String(o.chunkSize ?? 500), '--checkpoint-interval', '100'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 30,
        'restart-strategy.fixed-delay.delay': '100 ms',
      },
      ...(o.faults ? { faults: o.faults } : {}),
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    return { job, events, output, running: job.run() };
  }

  async function finish(s: Started, marker: number): Promise<{ lines: string[]; restarts: number; slotsFollowing: string[] }> {
    await committedPgMarker(s.job, s.events, s.output, marker);
    const slotsFollowing = await slotsSettled();
    await s.job.cancel();
    await s.running;
    return { lines: readCommittedLines(s.output), restarts: s.job.restarts, slotsFollowing };
  }

  /** The slots once no backfill slot is left (the readers drop them as the snapshot ends), or as they are after 15 s. */
  async function slotsSettled(): Promise<string[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const slots = await slotsLeft();
      if (!slots.some((name) => /_b\d+$/.test(name)) || Date.now() > deadline) return slots;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function slotsLeft(): Promise<string[]> {
    return (await sql.query('SELECT slot_name FROM pg_replication_slots ORDER BY 1')).rows.map((r) => r.slot_name as string);
  }

  before(async () => {
    root = makeTempDir('pg-cdc');
    server = await startPostgres();
    sql = await connectPg(server);
    await sql.query('CREATE TABLE markers (id int PRIMARY KEY)');
  });
  after(async () => {
    await sql?.end();
    await server?.stop();
    removeDir(root);
  });

  test('snapshot and WAL at p2 with 3 injected failures while the table changes: the change stream materializes into SELECT *', { timeout: 120_000 }, async (t) => {
    await createPgOrders(sql, 'orders', 4000);
    let writing = true;
    const workload = runPgWorkload(sql, 'orders', { seed: 7, operations: 100_000, maxKey: 12_500, until: () => !writing });
    const s = await startJob({ tables: 'public.orders,public.markers', slot: 'snap', startup: 'initial', faults: { failures: 3, seed: 5, minRecords: 200, maxRecords: 2500, vertexNameContains: 'Encode' } });
    // The workload runs through the snapshot and the failures, then the marker ends the input.
    await new Promise<void>((resolve, reject) => {
      s.events.onRestart = () => {
        if (s.job.restarts >= 3) resolve();
      };
      void s.job.result().then((r) => reject(new Error(`job ended: ${r.status} ${r.error?.message}`)));
    });
    writing = false;
    const operations = await workload;
    await sql.query('INSERT INTO markers VALUES (1)');
    const { lines, restarts, slotsFollowing } = await finish(s, 1);
    assert.equal(restarts, 3);
    assert.deepEqual(slotsFollowing, ['snap'], "while the job follows the WAL no reader keeps a backfill slot (it would hold WAL back), at p2 the one that does not follow the log too");
    const changes = parsePgChangeLines(lines);
    assert.ok(changes.some((c) => c.source.snapshot) && changes.some((c) => !c.source.snapshot && c.source.table === 'orders'), 'snapshot rows and WAL changes');
    assert.ok(changes.some((c) => c.unchangedColumns?.includes('note')), 'updates that left the TOASTed note out');
    const rows = await assertPgChangeStreamMatchesTable(server, changes, 'orders');
    t.diagnostic(`${operations} statements during the run, ${changes.length} change lines, ${rows} rows compared`);
    assert.deepEqual(await slotsLeft(), ['snap'], "the readers' backfill slots are dropped when the job ends");
  });

  test('a fixed WAL history: a run with 3 injected failures commits the same lines as a failure-free one', { timeout: 120_000 }, async () => {
    await createPgOrders(sql, 'history', 0);
    // Slots made before the history, one per run: each run reads the same WAL from the same place.
    // Their publications first: pgoutput looks a publication up as of the WAL it decodes.
    for (const slot of ['hist_clean', 'hist_failing']) {
      await sql.query(`CREATE PUBLICATION pub_${slot} FOR TABLE history, markers WITH (publish_via_partition_root = true)`);
      await sql.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);
    }
    await runPgWorkload(sql, 'history', { seed: 99, operations: 1500, maxKey: 3000 });
    await sql.query('INSERT INTO markers VALUES (2)');
    const tables = 'public.history,public.markers';
    const clean = await finish(await startJob({ tables, slot: 'hist_clean', startup: 'committed-offset' }), 2);
    const failing = await finish(await startJob({ tables, slot: 'hist_failing', startup: 'committed-offset', faults: { failures: 3, seed: 3, minRecords: 50, maxRecords: 300, vertexNameContains: 'Encode' } }), 2);
    assert.equal(failing.restarts, 3);
    const changes = parsePgChangeLines(clean.lines);
    assert.ok(changes.length > 1000, `only ${changes.length} changes`);
    assert.deepEqual(new Set(changes.map((c) => c.op)), new Set(['c', 'u', 'd']), 'inserts, updates and deletes, no snapshot');
    assert.equal(failing.lines.length, clean.lines.length, 'as many records');
    assert.deepEqual(failing.lines, clean.lines, 'the same records');
  });
  test('snapshot-only: the job reads the table in chunks and ends FINISHED by itself; the source makes no slot of its own', { timeout: 120_000 }, async () => {
    await createPgOrders(sql, 'static_orders', 3000);
    const s = await startJob({ tables: 'public.static_orders', slot: 'snaponly', startup: 'snapshot-only' });
    const result = await s.job.result();
    await s.running;
    assert.equal(result.status, 'FINISHED', result.error?.message);
    const changes = parsePgChangeLines(readCommittedLines(s.output));
    assert.ok(changes.length > 0 && changes.every((c) => c.op === 'r' && c.source.snapshot), 'snapshot rows only');
    await assertPgChangeStreamMatchesTable(server, changes, 'static_orders');
    assert.deepEqual((await slotsLeft()).filter((n) => n.startsWith('snaponly')), [], 'no slot left: the source has none, the backfill slots are dropped');
  });
});
