// The seed's title: "a CDC job's initial snapshot takes so long that checkpoints fail and the task
// restarts". A table that one query takes longer than the checkpoint timeout to read; checkpoints
// every 500 ms with a 2 s timeout and no tolerable failures. The chunked snapshot completes every
// checkpoint with no restart; a source that reads the table in one blocking query makes the
// checkpoint expire, and the reason names that subtask and its read.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { checkpointHint } from '../../src/coordinator/checkpoint-doctor.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect } from '../fixtures/cdc-workload.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'cdc-title.ts');
const ROWS = 1_000_000;
const TIMEOUT_MS = 2000;

describe('the title scenario: a snapshot longer than the checkpoint timeout', () => {
  let server: MariaDbServer;
  let root: string;
  let oneQueryMs = 0;
  const config = (name: string) => ({
    'parallelism.default': 1,
    'execution.checkpointing.interval': '500 ms',
    'execution.checkpointing.timeout': `${TIMEOUT_MS} ms`,
    'execution.checkpointing.tolerable-failed-checkpoints': 0,
    'execution.checkpointing.dir': join(root, name),
    'restart-strategy.type': 'fixed-delay',
    'restart-strategy.fixed-delay.attempts': 3,
    'restart-strategy.fixed-delay.delay': '100 ms',
  });
  const args = () => ['--port', String(server.port), '--password', server.password, '--table', 'big'];

  before(async () => {
    root = makeTempDir('title');
    server = await startMariaDb();
    const sql = await connect(server);
    await sql.query(`CREATE TABLE big (id INT PRIMARY KEY, customer VARCHAR(40), amount DECIMAL(12,2), status VARCHAR(16), created DATETIME(3), note VARCHAR(400))`);
    await sql.query(`INSERT INTO big SELECT seq, CONCAT('customer-', seq % 5000), (seq % 100000) / 100, ELT(1 + seq % 3, 'new', 'paid', 'shipped'),
      '2026-01-01 00:00:00.000' + INTERVAL seq SECOND, REPEAT('x', 300) FROM seq_1_to_${ROWS}`);
    await sql.end();
    // The premise: reading the table in one query takes longer than the checkpoint timeout.
    const start = performance.now();
    await promisify(execFile)('/usr/bin/mariadb', [`-h127.0.0.1`, `-P${server.port}`, '-uroot', `-p${server.password}`, '-N', '-B', '-e', 'SELECT * FROM test.big'], {
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

  test('the chunked snapshot: every checkpoint completes, no restart, the snapshot finishes', async (t) => {
    const events = new JobEvents();
    const job = await createJobMaster({ job: JOB, args: args(), config: config('incremental'), listener: events.listener, log: createLogger({ level: 'error' }) });
    const running = job.run();
    const duringSnapshot: number[] = [];
    let finalFigures: Record<string, number> = {};
    await new Promise<void>((resolve, reject) => {
      events.onCompleted = (c) => {
        const m = Object.values(job.sourceCoordinatorMetrics())[0] ?? {};
        if (m['snapshot_done'] !== 1) duringSnapshot.push(c.id);
        // Done, and one more checkpoint after the binlog phase began.
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

  test('one blocking read: the checkpoint expires, the reason names the subtask and its read, the job fails over', async (t) => {
    const events = new JobEvents();
    const job = await createJobMaster({
      job: JOB,
      args: [...args(), '--source', 'legacy'],
      config: config('legacy'),
      // The JobMaster's thread must stay free while the source's thread is blocked.
      taskManagers: 1,
      listener: events.listener,
      log: createLogger({ level: 'error' }),
    });
    const running = job.run();
    const restarted = new Promise<void>((resolve) => (events.onRestart = () => resolve()));
    await restarted;
    await job.cancel();
    await running;
    const failure = events.failed[0];
    assert.ok(failure, events.describe());
    assert.match(failure.reason, /^checkpoint 1 expired after 2\.00 s/);
    assert.match(failure.reason, /'Source: legacy[^']*' subtask 1\/1: reading table test\.big in one query \(for \d+ s/);
    const hint = checkpointHint(failure.failure) ?? '';
    t.diagnostic(`reason: ${failure.reason}`);
    t.diagnostic(`hint: ${hint}`);
    assert.match(hint, /source subtask 0 of 'Source: legacy[^']*' spent \d+ s inside one read of table test\.big/);
    assert.match(hint, /smaller chunk size/);
  });
});
