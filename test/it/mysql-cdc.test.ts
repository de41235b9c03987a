// The MySQL/MariaDB CDC source against a private MariaDB: snapshot in chunks while the table
// changes, then the binlog; the table materialized from the committed change stream must equal
// SELECT * of the table, with no change twice. Rescaling mid-snapshot: cdc-rescale.long.test.ts (both dialects, test:long).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, defineJob, type Sink } from '../../src/index.ts';
import { MySqlCdcSource, mysql2Runner, type ChangeRecord } from '../../src/connectors/mysql/index.ts';
import { prepareSnapshotConnection } from '../../src/connectors/mysql/column-codec.ts';
import { TYPE_CASES, TYPE_COLUMNS, TYPES_TABLE } from '../fixtures/column-types.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { assertChangeStreamMatchesTable, committedMarker, connect, createOrders, runWorkload, type Sql } from '../fixtures/cdc-workload.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { parseChangeLines } from '../fixtures/cdc-records.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'cdc-to-files.ts');

describe('MySqlCdcSource on a private MariaDB', () => {
  let server: MariaDbServer;
  let sql: Sql;
  let root: string;
  before(async () => {
    server = await startMariaDb();
    sql = await connect(server);
    root = makeTempDir('cdc');
  });
  after(async () => {
    await sql?.end();
    await server?.stop();
    removeDir(root);
  });

  test('snapshot and binlog under concurrent changes and injected failures: the change stream materializes into the table', async () => {
    await createOrders(sql, 'orders', 20_000);
    await sql.query('CREATE TABLE markers (id INT PRIMARY KEY)');
    const output = join(root, 'failures', 'output');
    const events = new JobEvents();
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', output, '--chunk-size', '700', '--checkpoint-interval', '150'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, 'failures', 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 20,
        'restart-strategy.fixed-delay.delay': '50 ms',
      },
      // Failures of the source mid-snapshot: a failure armed after the snapshot may land on an idle reader.
      faults: { failures: 3, seed: 7, minRecords: 1000, maxRecords: 5000, vertexNameContains: 'Source' },
      listener: events.listener,
      log: createLogger({ level: 'error' }),
    });
    const running = job.run();
    await runWorkload(sql, 'orders', { seed: 1, operations: 1500, maxKey: 42_000 });
    await sql.query('INSERT INTO markers VALUES (1)');
    const lines = await committedMarker(job, events, output, 1);
    await job.cancel();
    await running;

    await assertChangeStreamMatchesTable(server, lines, 'orders');
    assert.ok(lines.some((l) => l.source.table === 'orders' && !l.source.snapshot), 'binlog changes were captured');
    assert.ok(job.restarts >= 2 && events.restored.length >= 2, events.describe());
  });

  test('snapshot-only: the job reads the table in chunks and ends FINISHED by itself, each row once', async () => {
    await createOrders(sql, 'static_orders', 5000);
    const output = join(root, 'snapshot-only', 'output');
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', output, '--chunk-size', '700', '--checkpoint-interval', '150', '--tables', 'static_orders', '--startup', 'snapshot-only'],
      config: { 'parallelism.default': 2, 'execution.checkpointing.dir': join(root, 'snapshot-only', 'checkpoints') },
      log: createLogger({ level: 'error' }),
    });
    const result = await job.run();
    assert.equal(result.status, 'FINISHED', result.error?.message);
    const lines = parseChangeLines(readCommittedLines(output));
    assert.ok(lines.length > 0 && lines.every((c) => c.op === 'r' && c.source.snapshot), 'snapshot rows only');
    assert.equal(await assertChangeStreamMatchesTable(server, lines, 'static_orders'), 5000);
  });

  test('every common column type round-trips exactly through the snapshot and the binlog', async () => {
    const q = await connect(server);
    await prepareSnapshotConnection(mysql2Runner(q));
    await q.query(TYPES_TABLE);
    const insert = (c: (typeof TYPE_CASES)[number], id: number) =>
      q.query(`INSERT INTO types (${TYPE_COLUMNS.join(', ')}) VALUES (${TYPE_COLUMNS.map((k) => (k === 'id' ? String(id) : c.sql[k])).join(', ')})`);
    for (const c of TYPE_CASES) await insert(c, Number(c.sql['id']));

    // A sink in this thread: the records as the source made them (bigints, Buffers), not copies.
    const records: ChangeRecord[] = [];
    let arrived: (() => void) | undefined;
    const sink: Sink<ChangeRecord> = { createWriter: () => ({ write: (r) => void (records.push(r), arrived?.()) }) };
    const until = (done: () => boolean) => new Promise<void>((resolve) => (arrived = () => done() && resolve()));
    const source = new MySqlCdcSource({ ...server.connectionOptions(), database: 'test', tables: ['types'], serverId: '5700-5701' });
    const job = await createJobMaster({
      job: defineJob((env) => {
        env.enableCheckpointing(100);
        env.fromSource(source, { uid: 'cdc' }).sinkTo(sink, { uid: 'sink' });
      }),
      config: { 'execution.checkpointing.dir': join(root, 'types') },
      log: createLogger({ level: 'error' }),
    });
    const running = job.run();
    await until(() => records.length === TYPE_CASES.length);
    // The binlog phase: the same values inserted again under other keys, then all rows deleted.
    const inserted = until(() => records.filter((r) => r.op === 'c').length === TYPE_CASES.length);
    for (const c of TYPE_CASES) await insert(c, 100 + Number(c.sql['id']));
    await inserted;
    const deleted = until(() => records.filter((r) => r.op === 'd').length === 2 * TYPE_CASES.length);
    await q.query('DELETE FROM types');
    await deleted;
    await job.cancel();
    await running;
    await q.end();

    const byOp = (op: string) => records.filter((r) => r.op === op);
    const expected = TYPE_CASES.map((c) => c.expected);
    const rekeyed = expected.map((e) => ({ ...e, id: 100 + (e['id'] as number) }));
    const sortById = (rows: Array<Record<string, unknown> | null>) => [...rows].sort((a, b) => (a!['id'] as number) - (b!['id'] as number));
    assert.deepStrictEqual(sortById(byOp('r').map((r) => r.after)), expected, 'snapshot rows');
    assert.deepStrictEqual(sortById(byOp('c').map((r) => r.after)), rekeyed, 'inserted rows from the binlog');
    assert.deepStrictEqual(sortById(byOp('d').map((r) => r.before)), [...expected, ...rekeyed], 'deleted rows from the binlog');
  });
});
