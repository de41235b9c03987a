// A publication made after its replication slot: pgoutput looks a publication up as of the WAL it
// decodes, so the WAL written between the two cannot be decoded with it. The job fails at once
// (no restart loop: every restart would read the same WAL) with PublicationAfterSlotError naming
// the slot, the publication and the two ways out; taking one of them (advancing the slot past the
// publication's creation), the same job then streams the changes made after it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type pg from 'pg';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { committedPgMarker, connectPg } from '../fixtures/pg-cdc-workload.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'pg-cdc-to-files.ts');

let server: PostgresServer;
let sql: pg.Client;
let root: string;
before(async () => {
  root = makeTempDir('pg-late-pub');
  server = await startPostgres();
  sql = await connectPg(server);
});
after(async () => {
  await sql?.end();
  await server?.stop();
  removeDir(root);
});

test('a publication made after its slot: the job fails without restarts, naming slot and publication; advanced past it, the slot streams', { timeout: 120_000 }, async () => {
  await sql.query('CREATE TABLE late (id int PRIMARY KEY, v text)');
  await sql.query('CREATE TABLE markers (id int PRIMARY KEY)');
  await sql.query(`SELECT pg_create_logical_replication_slot('late', 'pgoutput')`);
  await sql.query(`INSERT INTO late VALUES (1, 'before the publication')`);
  await sql.query('CREATE PUBLICATION pub_late FOR TABLE late, markers');
  await sql.query(`INSERT INTO late VALUES (2, 'after the publication')`);

  const run = async (name: string, events: JobEvents) => {
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', join(root, name), '--tables', 'public.late,public.markers', '--slot', 'late', '--publication', 'pub_late', '--startup', 'committed-offset', '--checkpoint-interval', '100'],
      config: { 'parallelism.default': 1, 'execution.checkpointing.dir': join(root, `${name}-checkpoints`), 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 5, 'restart-strategy.fixed-delay.delay': '100 ms' },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    return { job, running: job.run() };
  };

  const failing = await run('failing', new JobEvents());
  const result = await failing.job.result();
  await failing.running;
  assert.equal(result.status, 'FAILED');
  assert.equal(failing.job.restarts, 0, 'no restart: each would decode the same WAL');
  const message = result.error?.message ?? '';
  assert.match(message, /replication slot 'late' holds WAL \(at [0-9A-F]+\/[0-9A-F]+\) written before publication 'pub_late' existed/);
  assert.match(message, /pg_replication_slot_advance\('late', pg_current_wal_lsn\(\)\)/);

  // The second way out: the changes before the publication are given up, the slot moves on.
  await sql.query(`SELECT pg_replication_slot_advance('late', pg_current_wal_lsn())`);
  await sql.query(`UPDATE late SET v = 'streamed' WHERE id = 2`);
  await sql.query('INSERT INTO markers VALUES (1)');
  const events = new JobEvents();
  const streaming = await run('streaming', events);
  const lines = await committedPgMarker(streaming.job, events, join(root, 'streaming'), 1);
  await streaming.job.cancel();
  await streaming.running;
  const changes = lines.filter((l) => l.source.table === 'late').map((l) => [l.op, l.after?.['v']]);
  assert.deepEqual(changes, [['u', 'streamed']]);
});
