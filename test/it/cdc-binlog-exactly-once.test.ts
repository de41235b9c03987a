// The binlog phase record for record: a fixed history of changes is in the binlog before the jobs
// start, so every run from the same position must commit exactly the same change records. A run
// with injected failures is compared with a failure-free run; a start at the GTID of that
// position with a start at its file and offset; `latest` and `timestamp` starts see only what
// came after them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import type { FaultInjectionOptions } from '../../src/coordinator/fault-injector.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, createOrders, runWorkload, type Sql } from '../fixtures/cdc-workload.ts';
import { parseChangeLines, type ChangeLine } from '../fixtures/cdc-records.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'cdc-to-files.ts');

describe('the binlog phase, record for record', () => {
  let server: MariaDbServer;
  let sql: Sql;
  let root: string;
  let start: { file: string; pos: number; gtid: string };
  let runs = 0;

  async function position(): Promise<{ file: string; pos: number; gtid: string }> {
    const [[status]] = (await sql.query('SHOW MASTER STATUS')) as unknown as [[{ File: string; Position: number | string }]];
    const [[g]] = (await sql.query('SELECT @@gtid_binlog_pos AS gtid')) as unknown as [[{ gtid: string }]];
    return { file: status.File, pos: Number(status.Position), gtid: g.gtid };
  }

  /** Runs the job from `startup` until the marker row of `marker` is committed; returns the committed change lines. */
  async function run(startup: string, marker: number, faults?: FaultInjectionOptions): Promise<{ lines: string[]; restarts: number }> {
    const dir = join(root, `run-${++runs}`);
    const output = join(dir, 'output');
    const events = new JobEvents();
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', output, '--startup', startup, '--tables', 'history,markers', '--checkpoint-interval', '60'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 20,
        'restart-strategy.fixed-delay.delay': '20 ms',
      },
      ...(faults ? { faults } : {}),
      listener: events.listener,
      log: createLogger({ level: 'error' }),
    });
    const running = job.run();
    const hasMarker = () => parseChangeLines(readCommittedLines(output)).some((l) => l.source.table === 'markers' && l.after?.['id'] === marker);
    await new Promise<void>((resolve, reject) => {
      events.onCompleted = () => hasMarker() && resolve();
      void job.result().then((r) => reject(new Error(`job ended: ${r.status} ${r.error?.message}`)));
    });
    await job.cancel();
    await running;
    return { lines: readCommittedLines(output), restarts: job.restarts };
  }

  before(async () => {
    root = makeTempDir('cdc-binlog');
    server = await startMariaDb();
    sql = await connect(server);
    await createOrders(sql, 'history', 0);
    await sql.query('CREATE TABLE markers (id INT PRIMARY KEY)');
    start = await position();
    await runWorkload(sql, 'history', { seed: 99, operations: 4000, maxKey: 3000 });
    await sql.query('INSERT INTO markers VALUES (1)');
  });
  after(async () => {
    await sql?.end();
    await server?.stop();
    removeDir(root);
  });

  test('with 4 injected failures, the committed change stream equals the failure-free one', async () => {
    const clean = await run(`${start.file}:${start.pos}`, 1);
    const failing = await run(`${start.file}:${start.pos}`, 1, { failures: 4, seed: 3, minRecords: 100, maxRecords: 1200, vertexNameContains: 'Encode' });
    assert.equal(failing.restarts, 4);
    const changes = parseChangeLines(clean.lines);
    assert.ok(changes.length > 2000, `only ${changes.length} changes`);
    assert.ok(changes.every((c: ChangeLine) => !c.source.snapshot));
    assert.deepEqual(new Set(['c', 'u', 'd'].filter((op) => changes.some((c) => c.op === op))).size, 3, 'inserts, updates and deletes');
    assert.equal(failing.lines.length, clean.lines.length, 'as many records');
    assert.deepEqual(failing.lines, clean.lines, 'the same records');
  });

  test('a start at the GTID of a position gives the same records as a start at its file and offset', async () => {
    const byFile = await run(`${start.file}:${start.pos}`, 1);
    const byGtid = await run(`gtid:${start.gtid}`, 1);
    assert.deepEqual(byGtid.lines, byFile.lines);
    assert.ok(parseChangeLines(byGtid.lines).every((c) => typeof c.source.gtid === 'string' && /^0-1-\d+$/.test(c.source.gtid)));
  });

  test('latest and timestamp starts see only the changes after them', async () => {
    const now = await position();
    const before = Date.now();
    // Binlog timestamps have second resolution: the changes to see come a second later.
    await new Promise((r) => setTimeout(r, 1100 - (before % 1000)));
    const since = Date.now();
    await sql.query("INSERT INTO history VALUES (900001, 'later', 1.00, NULL, 'new', NOW(3))");
    await sql.query('INSERT INTO markers VALUES (2)');
    for (const startup of [`${now.file}:${now.pos}`, `ts:${since}`]) {
      const { lines } = await run(startup, 2);
      const changes = parseChangeLines(lines);
      assert.deepEqual(
        changes.map((c) => `${c.op} ${c.source.table} ${String(c.after?.['id'])}`).sort(),
        ['c history 900001', 'c markers 2'],
        `start ${startup}`,
      );
    }
  });

  test('the binlog connection dropped by the server mid-stream: the job restarts and commits exactly what a clean run does', async () => {
    const from = await position();
    const dir = join(root, 'dropped');
    const output = join(dir, 'output');
    const events = new JobEvents();
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', output, '--startup', `${from.file}:${from.pos}`, '--tables', 'history,markers', '--checkpoint-interval', '60'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 5,
        'restart-strategy.fixed-delay.delay': '50 ms',
      },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    const running = job.run();
    await runWorkload(sql, 'history', { seed: 123, operations: 800, maxKey: 3000 });
    // What a network failure or a server restart does to a replica: its dump thread goes away.
    const [dumps] = (await sql.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")) as unknown as [Array<{ ID: number }>];
    assert.ok(dumps.length > 0, 'the job reads the binlog');
    for (const d of dumps) await sql.query(`KILL ${d.ID}`);
    await runWorkload(sql, 'history', { seed: 124, operations: 800, maxKey: 3000 });
    await sql.query('INSERT INTO markers VALUES (3)');
    const hasMarker = () => parseChangeLines(readCommittedLines(output)).some((l) => l.source.table === 'markers' && l.after?.['id'] === 3);
    await new Promise<void>((resolve, reject) => {
      events.onCompleted = () => hasMarker() && resolve();
      void job.result().then((r) => reject(new Error(`job ended: ${r.status} ${r.error?.message}`)));
    });
    await job.cancel();
    await running;
    assert.ok(job.restarts >= 1, `the dropped connection failed the reader: ${events.describe()}`);
    const clean = await run(`${from.file}:${from.pos}`, 3);
    assert.deepEqual(readCommittedLines(output), clean.lines);
  });
});
