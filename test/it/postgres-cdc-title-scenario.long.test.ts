// The seed's title on PostgreSQL: "a CDC job's initial snapshot takes so long that checkpoints fail
// and the task restarts". A table that one SELECT * takes longer than the checkpoint timeout to
// read; checkpoints every 500 ms with a 2 s timeout and no tolerable failures: the chunked
// snapshot of PostgresCdcSource completes every checkpoint with no restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { connectPg } from '../fixtures/pg-cdc-workload.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'pg-cdc-title.ts');
const ROWS = 1_000_000;
const TIMEOUT_MS = 2000;
const PSQL = '/usr/bin/psql';

describe('the title scenario on PostgreSQL: a snapshot longer than the checkpoint timeout', () => {
  let server: PostgresServer;
  let root: string;
  let oneQueryMs = 0;

  before(async () => {
    root = makeTempDir('pg-title');
    server = await startPostgres();
    const sql = await connectPg(server);
    await sql.query(`CREATE TABLE big (id int PRIMARY KEY, customer text, amount numeric(12,2), status text, created timestamp(3), note text)`);
    await sql.query(`INSERT INTO big SELECT g, 'customer-' || (g % 5000), (g % 100000) / 100.0, (ARRAY['new', 'paid', 'shipped'])[1 + g % 3],
      timestamp '2026-01-01' + g * interval '1 second', repeat('x', 300) FROM generate_series(1, ${ROWS}) g`);
    await sql.query('ANALYZE big');
    await sql.end();
    // The premise: reading the table in one query takes longer than the checkpoint timeout.
    const start = performance.now();
    await promisify(execFile)(PSQL, ['-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres', '-d', 'postgres', '-At', '-c', 'SELECT * FROM big'], {
      env: { ...process.env, PGPASSWORD: server.password },
      maxBuffer: 1 << 30,
    });
    oneQueryMs = performance.now() - start;
  });
  after(async () => {
    await server?.stop();
    removeDir(root);
  });

  test('one query reads the table in longer than the checkpoint timeout', (t) => {
    t.diagnostic(`one SELECT * of ${ROWS.toLocaleString('en-US')} rows took ${Math.round(oneQueryMs)} ms; the checkpoint timeout is ${TIMEOUT_MS} ms`);
    assert.ok(oneQueryMs > TIMEOUT_MS, `one SELECT * took ${Math.round(oneQueryMs)} ms, the timeout is ${TIMEOUT_MS} ms`);
  });

  test('the chunked snapshot: every checkpoint completes, no restart, the snapshot finishes', { timeout: 600_000 }, async (t) => {
    const events = new JobEvents();
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--table', 'big'],
      config: {
        'parallelism.default': 1,
        'execution.checkpointing.interval': '500 ms',
        'execution.checkpointing.timeout': `${TIMEOUT_MS} ms`,
        'execution.checkpointing.tolerable-failed-checkpoints': 0,
        'execution.checkpointing.dir': join(root, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 3,
        'restart-strategy.fixed-delay.delay': '100 ms',
      },
      listener: events.listener,
      log: createLogger({ level: 'error' }),
    });
    const running = job.run();
    const duringSnapshot: number[] = [];
    let finalFigures: Record<string, number> = {};
    await new Promise<void>((resolve, reject) => {
      events.onCompleted = (c) => {
        const m = Object.values(job.sourceCoordinatorMetrics())[0] ?? {};
        if (m['snapshot_done'] !== 1) duringSnapshot.push(c.id);
        else if (m['snapshot_rows_read'] === ROWS && duringSnapshot.length > 0) {
          finalFigures = m;
          resolve();
        }
      };
      void job.result().then((r) => reject(new Error(`job ended: ${r.status} ${r.error?.message}`)));
    });
    await job.cancel();
    await running;
    assert.deepEqual(events.failed, [], 'no checkpoint failed');
    assert.equal(job.restarts, 0);
    assert.ok(duringSnapshot.length >= 3, `checkpoints completed while the snapshot ran: ${duringSnapshot.join(', ')}`);
    const m = finalFigures;
    t.diagnostic(`${duringSnapshot.length} checkpoints completed during the snapshot (${m['snapshot_chunks_finished']} chunks, ${m['snapshot_rows_read']} rows), ${events.completed.length} in all, 0 failed, 0 restarts`);
  });
});
