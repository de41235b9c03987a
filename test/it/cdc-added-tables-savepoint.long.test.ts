// Tables added later (scanNewlyAddedTables) across a stop-with-savepoint, in a whole job (enumerator,
// readers, checkpoints, a transactional file sink), on MariaDB and PostgreSQL: a job following
// `kept` and `dropped_one` stops with a savepoint; the job resumed from it with the patterns `kept`
// and `later` snapshots `later` (whose rows are not in the log the job reads: they were written
// before it started) in chunks, then follows it; `kept` loses no change, also those written while
// the job was stopped and during `later`'s snapshot; `dropped_one` leaves the state with a log line
// and none of its changes after the stop is committed. The committed lines, replayed in log order,
// equal each table row for row.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type pg from 'pg';
import { createJobMaster, createLogger, defineJob, type Source } from '../../src/index.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import { FileSink, onCheckpointRollingPolicy } from '../../src/connectors/file/index.ts';
import { MySqlCdcSource, type ChangeRecord } from '../../src/connectors/mysql/index.ts';
import { PostgresCdcSource, type PostgresChangeRecord } from '../../src/connectors/postgres/index.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { assertChangeStreamMatchesTable, connect, createOrders, runWorkload, type Sql } from '../fixtures/cdc-workload.ts';
import { assertPgChangeStreamMatchesTable, connectPg, createPgOrders, runPgWorkload } from '../fixtures/pg-cdc-workload.ts';
import { changeLine, parseChangeLines, type ChangeLine } from '../fixtures/cdc-records.ts';
import { parsePgChangeLines, pgChangeLine, type PgChangeLine } from '../fixtures/pg-cdc-records.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';

let root: string;
before(() => {
  root = makeTempDir('cdc-added-savepoint');
});
after(() => removeDir(root));

type Line = ChangeLine | PgChangeLine;

/** What the scenario needs of a database: its tables, workloads, source and the stream's check. */
interface Db {
  readonly name: string;
  createOrders(table: string, rows: number): Promise<void>;
  workload(table: string, seed: number, operations: number, maxKey: number): Promise<unknown>;
  insert(table: string, id: number): Promise<void>;
  source(tables: string[]): Source<unknown, unknown>;
  line(r: unknown): string;
  parse(lines: string[]): Line[];
  assertMatches(lines: Line[], table: string): Promise<number>;
}

/** Resolves with the committed lines once `done` holds for them (looked at after each completed checkpoint). */
function committed(job: JobMaster, events: JobEvents, output: string, db: Db, what: string, done: (lines: Line[]) => boolean): Promise<Line[]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}: ${events.describe()}`)), 180_000);
    events.onCompleted = () => {
      const lines = db.parse(readCommittedLines(output));
      if (!done(lines)) return;
      clearTimeout(timer);
      resolve(lines);
    };
    void job.result().then((r) => reject(new Error(`job ended (${r.status}) before ${what}: ${r.error?.message}`)));
  });
}

const has = (table: string, id: number) => (lines: Line[]) => lines.some((l) => l.source.table === table && l.after?.['id'] === id);

async function addedOnResumeFromSavepoint(db: Db): Promise<void> {
  const dir = join(root, db.name);
  const output = join(dir, 'output');
  await db.createOrders('kept', 2_000);
  await db.createOrders('dropped_one', 0);
  await db.createOrders('later', 3_000);
  await db.createOrders('markers', 0);
  const jobFor = (tables: string[]) =>
    defineJob((env) => {
      env.enableCheckpointing(200);
      env
        .fromSource(db.source(tables), { name: 'Source: cdc', uid: 'cdc' })
        .map((r: unknown) => db.line(r), { name: 'Line' })
        .sinkTo(new FileSink<string>(output, { rollingPolicy: onCheckpointRollingPolicy() }), { name: 'Sink: files', uid: 'sink' });
    });
  const config = { 'parallelism.default': 2, 'execution.checkpointing.dir': join(dir, 'checkpoints'), 'restart-strategy.type': 'none' };

  const eventsA = new JobEvents();
  const first = await createJobMaster({ job: jobFor(['kept', 'dropped_one', 'markers']), config, listener: eventsA.listener, log: createLogger({ level: 'error', write: () => {} }) });
  const runningA = first.run();
  await db.insert('markers', 1);
  await committed(first, eventsA, output, db, 'marker 1', has('markers', 1));
  await db.workload('kept', 1, 300, 4_500);
  await db.insert('dropped_one', 1);
  await db.insert('markers', 2);
  const linesA = await committed(first, eventsA, output, db, 'marker 2', has('markers', 2));
  assert.ok(linesA.some((l) => l.source.table === 'dropped_one'), 'dropped_one is followed by the first patterns');
  assert.ok(!linesA.some((l) => l.source.table === 'later'), 'later is not captured by the first patterns');
  const savepoint = await first.stopWithSavepoint(join(dir, 'savepoints'));
  await runningA;

  // While the job is stopped.
  await db.workload('kept', 2, 200, 4_500);
  await db.workload('later', 3, 200, 7_000);
  await db.insert('dropped_one', 2);

  const eventsB = new JobEvents();
  const messages: string[] = [];
  const log = createLogger({ level: 'info', write: (l) => void messages.push(l) });
  const second = await createJobMaster({ job: jobFor(['kept', 'later', 'markers']), config, restoreFrom: savepoint.directory, listener: eventsB.listener, log });
  const runningB = second.run();
  try {
    // Changes of both tables while later is snapshotted.
    await Promise.all([db.workload('kept', 4, 300, 4_500), db.workload('later', 5, 300, 7_000)]);
    await db.insert('dropped_one', 3);
    const ended = second.result().then((r) => {
      throw new Error(`job ended (${r.status}) before later was snapshotted: ${r.error?.message}`);
    });
    ended.catch(() => {});
    await Promise.race([eventsB.waitFor('later snapshotted', () => messages.some((m) => /table \S*later is snapshotted \(\d+ chunk/.test(m)), 180_000), ended]);
    // Followed once snapshotted.
    await db.workload('later', 6, 100, 7_000);
    await db.insert('later', 1_000_001);
    await db.insert('markers', 3);
    const lines = await committed(second, eventsB, output, db, 'marker 3', (ls) => has('markers', 3)(ls) && has('later', 1_000_001)(ls));
    assert.deepEqual(eventsB.restored.map((r) => r.isSavepoint), [true], 'resumed from the savepoint');
    const seen = (re: RegExp, what: string) => assert.ok(messages.some((m) => re.test(m)), `${what}; the job's log:\n${messages.filter((m) => m.includes('table')).join('\n')}`);
    seen(/table \S*dropped_one no longer matches the source's patterns: dropped from the state/, 'dropped_one leaves the state with a log line');
    seen(/table \S*later matches the source's patterns and was not snapshotted/, 'later is found');
    seen(/table \S*later is snapshotted \([3-9]\d* chunk/, 'later is snapshotted in chunks');
    assert.deepEqual(lines.filter((l) => l.source.table === 'dropped_one').map((l) => l.after?.['id']), [1], 'nothing of dropped_one after the stop');
    const laterSnapshot = lines.filter((l) => l.source.table === 'later' && l.op === 'r').length;
    assert.ok(laterSnapshot > 2_500, `later came as a snapshot (${laterSnapshot} rows)`);
    assert.ok(lines.some((l) => l.source.table === 'later' && l.op === 'c' && !l.source.snapshot && l.after?.['id'] === 1_000_001), 'later is followed after its snapshot');
    const keptRows = await db.assertMatches(lines, 'kept');
    const laterRows = await db.assertMatches(lines, 'later');
    console.log(`${db.name}: kept ${keptRows} rows from ${lines.filter((l) => l.source.table === 'kept').length} lines across the savepoint; later ${laterRows} rows from ${laterSnapshot} snapshot and ${lines.filter((l) => l.source.table === 'later' && l.op !== 'r').length} log lines`);
  } finally {
    await second.cancel().catch(() => {});
    await runningB;
  }
}

test('MariaDB: a table added to the patterns on resume from a savepoint is snapshotted, then followed; the old table loses no change; a table no longer matching leaves the state', { timeout: 600_000 }, async () => {
  const server: MariaDbServer = await startMariaDb();
  const sql: Sql = await connect(server);
  try {
    await addedOnResumeFromSavepoint({
      name: 'mariadb',
      createOrders: (table, rows) => createOrders(sql, table, rows),
      workload: (table, seed, operations, maxKey) => runWorkload(sql, table, { seed, operations, maxKey }),
      insert: async (table, id) => void (await sql.query(table === 'markers' ? `INSERT INTO markers (id, customer, amount, updated) VALUES (${id}, 'm', 0, NOW(3))` : `INSERT INTO ${table} VALUES (${id}, 'x', 1, NULL, NULL, NOW(3))`)),
      source: (tables) => new MySqlCdcSource({ ...server.connectionOptions(), database: 'test', tables, serverId: '6700-6703', chunkSize: 500, scanNewlyAddedTables: true }) as unknown as Source<unknown, unknown>,
      line: (r) => changeLine(r as ChangeRecord),
      parse: (lines) => parseChangeLines(lines),
      assertMatches: (lines, table) => assertChangeStreamMatchesTable(server, lines as ChangeLine[], table),
    });
  } finally {
    await sql.end();
    await server.stop();
  }
});

test('PostgreSQL: a table added to the patterns on resume from a savepoint is published, snapshotted, then followed; the old table loses no change; a table no longer matching leaves the state', { timeout: 600_000 }, async () => {
  const server: PostgresServer = await startPostgres();
  const sql: pg.Client = await connectPg(server);
  try {
    await addedOnResumeFromSavepoint({
      name: 'postgres',
      createOrders: (table, rows) => createPgOrders(sql, table, rows),
      workload: (table, seed, operations, maxKey) => runPgWorkload(sql, table, { seed, operations, maxKey }),
      insert: async (table, id) => void (await sql.query(`INSERT INTO ${table} (id, customer, amount, updated) VALUES (${id}, 'x', 1, now()::timestamp(3))`)),
      source: (tables) =>
        new PostgresCdcSource({ ...server.connectionOptions(), tables: tables.map((t) => `public.${t}`), slotName: 'added_sp', publicationName: 'added_sp_pub', chunkSize: 500, scanNewlyAddedTables: true, warn: () => {} }) as unknown as Source<unknown, unknown>,
      line: (r) => pgChangeLine(r as PostgresChangeRecord),
      parse: (lines) => parsePgChangeLines(lines),
      assertMatches: (lines, table) => assertPgChangeStreamMatchesTable(server, lines as PgChangeLine[], table),
    });
  } finally {
    await sql.end();
    await server.stop();
  }
});
