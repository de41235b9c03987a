// The binlog phase record for record: a fixed history of changes is in the binlog before the jobs
// start, so every run from the same position must commit exactly the same change records. A run
// with injected failures is compared with a failure-free run; a start at the GTID of that
// position with a start at its file and offset; `latest` and `timestamp` starts see only what
// came after them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import type { FaultInjectionOptions } from '../../src/coordinator/fault-injector.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { committedMarker, connect, createOrders, runWorkload, type Sql } from '../fixtures/cdc-workload.ts';
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

  interface Started {
    readonly job: JobMaster;
    readonly events: JobEvents;
    readonly output: string;
    readonly running: Promise<unknown>;
  }

  /** Starts the job from `startup` over `tables`; `finish` waits for a marker row and cancels it. */
  async function startJob(startup: string, o: { faults?: FaultInjectionOptions; tables?: string; quiet?: boolean } = {}): Promise<Started> {
    const dir = join(root, `run-${++runs}`);
    const output = join(dir, 'output');
    const events = new JobEvents();
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', output, '--startup', startup, '--tables', o.tables ?? 'history,markers', '--checkpoint-interval', '60'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 20,
        'restart-strategy.fixed-delay.delay': '20 ms',
      },
      ...(o.faults ? { faults: o.faults } : {}),
      listener: events.listener,
      log: createLogger({ level: 'error', ...(o.quiet ? { write: () => {} } : {}) }),
    });
    return { job, events, output, running: job.run() };
  }

  const committed = (s: Started, marker: number) => committedMarker(s.job, s.events, s.output, marker);

  /** Waits until the marker row `marker` is committed, then cancels the job; the committed lines. */
  async function finish(s: Started, marker: number): Promise<{ lines: string[]; restarts: number }> {
    await committed(s, marker);
    await s.job.cancel();
    await s.running;
    return { lines: readCommittedLines(s.output), restarts: s.job.restarts };
  }

  /** Runs the job from `startup` until the marker row `marker` is committed; returns the committed change lines. */
  async function run(startup: string, marker: number, faults?: FaultInjectionOptions): Promise<{ lines: string[]; restarts: number }> {
    return finish(await startJob(startup, faults ? { faults } : {}), marker);
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
    const started = await startJob(`${from.file}:${from.pos}`, { quiet: true });
    await runWorkload(sql, 'history', { seed: 123, operations: 800, maxKey: 3000 });
    // What a network failure or a server restart does to a replica: its dump thread goes away.
    const [dumps] = (await sql.query("SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")) as unknown as [Array<{ ID: number }>];
    assert.ok(dumps.length > 0, 'the job reads the binlog');
    for (const d of dumps) await sql.query(`KILL ${d.ID}`);
    await runWorkload(sql, 'history', { seed: 124, operations: 800, maxKey: 3000 });
    await sql.query('INSERT INTO markers VALUES (3)');
    const dropped = await finish(started, 3);
    assert.ok(dropped.restarts >= 1, `the dropped connection failed the reader: ${started.events.describe()}`);
    const clean = await run(`${from.file}:${from.pos}`, 3);
    assert.deepEqual(dropped.lines, clean.lines);
  });

  // The binlog is decoded with the table's schema as it is now (there is no schema history): a job
  // that has read up to an ALTER follows it; one behind it fails with BinlogSchemaError (README).
  test('a column added while the job follows the binlog: the changes after it carry the column', async () => {
    await sql.query('CREATE TABLE altered (id INT PRIMARY KEY, v VARCHAR(10))');
    const now = await position();
    const started = await startJob(`${now.file}:${now.pos}`, { tables: 'altered,markers' });
    await sql.query("INSERT INTO altered VALUES (1, 'before')");
    await sql.query('INSERT INTO markers VALUES (40)');
    await committed(started, 40);
    await sql.query('ALTER TABLE altered ADD COLUMN n DECIMAL(6,2) NOT NULL DEFAULT 1.50');
    await sql.query("INSERT INTO altered VALUES (2, 'after', 2.25)");
    await sql.query("UPDATE altered SET v = 'changed' WHERE id = 1");
    await sql.query('INSERT INTO markers VALUES (4)');
    const { lines } = await finish(started, 4);
    const changes = parseChangeLines(lines)
      .filter((c) => c.source.table === 'altered')
      .sort((x, y) => x.source.pos - y.source.pos)
      .map((c) => [c.op, c.before, c.after]);
    assert.deepEqual(changes, [
      ['c', null, { id: 1, v: 'before' }],
      ['c', null, { id: 2, v: 'after', n: '2.25' }],
      ['u', { id: 1, v: 'before', n: '1.50' }, { id: 1, v: 'changed', n: '1.50' }],
    ]);
  });
});
