// Tables added later (scanNewlyAddedTables) across a stop-with-savepoint, in a whole job (enumerator,
// readers, checkpoints, a transactional file sink), on MariaDB and PostgreSQL: a job following
// `kept` and `dropped_one` stops with a savepoint; the job resumed from it with the patterns `kept`
// and `later` snapshots `later` (whose rows are not in the log the job reads: they were written
// before it started) in chunks, then follows it; `kept` loses no change, also those written while
// the job was stopped and during `later`'s snapshot; `dropped_one` leaves the state with a log line
// and none of its changes after the stop is committed. The committed lines, replayed in log order,
// equal each table row for row. Then the same with the savepoint taken during the initial snapshot:
// the restored enumerator drops the chunks of the table no longer matching (cut, handed out or
// finished) and snapshots the added table with the others.
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
import { ThrottledSink } from '../fixtures/throttled-sink.ts';

let root: string;
before(() => {
  root = makeTempDir('cdc-added-savepoint');
});
after(() => removeDir(root));

type Line = ChangeLine | PgChangeLine;

/** What the scenario needs of a database: its tables, workloads, source and the stream's check. */
interface Db {
  readonly name: string;
  drop(table: string): Promise<void>;
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
  for (const t of ['kept', 'dropped_one', 'later', 'markers']) await db.drop(t);
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

/** The savepoint is taken while `gone` (5,000 rows) and `kept` (20,000) are snapshotted behind a slow sink. */
async function changedDuringSnapshot(db: Db): Promise<void> {
  const dir = join(root, `${db.name}-during-snapshot`);
  const output = join(dir, 'output');
  for (const t of ['gone', 'kept', 'later', 'markers']) await db.drop(t);
  await db.createOrders('gone', 5_000);
  await db.createOrders('kept', 20_000);
  await db.createOrders('later', 3_000);
  await db.createOrders('markers', 0);
  const jobFor = (tables: string[], perSecond: number) =>
    defineJob((env) => {
      env.enableCheckpointing(200);
      env
        .fromSource(db.source(tables), { name: 'Source: cdc', uid: 'cdc' })
        .map((r: unknown) => db.line(r), { name: 'Line' })
        .sinkTo(new ThrottledSink(new FileSink<string>(output, { rollingPolicy: onCheckpointRollingPolicy() }), perSecond), { name: 'Sink: files', uid: 'sink' });
    });
  const config = { 'parallelism.default': 2, 'execution.checkpointing.dir': join(dir, 'checkpoints'), 'restart-strategy.type': 'none' };
  const snapshotted = (table: string) => (lines: Line[]) => lines.filter((l) => l.source.table === table && l.op === 'r').length;

  const eventsA = new JobEvents();
  const first = await createJobMaster({ job: jobFor(['gone', 'kept', 'markers'], 1_500), config, listener: eventsA.listener, log: createLogger({ level: 'error', write: () => {} }) });
  const runningA = first.run();
  await committed(first, eventsA, output, db, 'a part of gone\'s snapshot', (ls) => snapshotted('gone')(ls) >= 1_000);
  const savepoint = await first.stopWithSavepoint(join(dir, 'savepoints'));
  await runningA;
  const atStop = db.parse(readCommittedLines(output));
  assert.ok(snapshotted('gone')(atStop) < 5_000 && snapshotted('kept')(atStop) < 20_000, `the savepoint is taken during the snapshot (gone ${snapshotted('gone')(atStop)}, kept ${snapshotted('kept')(atStop)} rows)`);

  await db.workload('kept', 7, 200, 45_000);
  await db.workload('later', 8, 200, 7_000);
  await db.workload('gone', 9, 100, 11_000);
  const eventsB = new JobEvents();
  const messages: string[] = [];
  const second = await createJobMaster({ job: jobFor(['kept', 'later', 'markers'], 1_000_000), config, restoreFrom: savepoint.directory, listener: eventsB.listener, log: createLogger({ level: 'info', write: (l) => void messages.push(l) }) });
  const runningB = second.run();
  try {
    await Promise.all([db.workload('kept', 10, 200, 45_000), db.workload('later', 11, 200, 7_000), db.workload('gone', 12, 100, 11_000)]);
    // The marker from the log, not from the markers table's chunk: every change before it is committed.
    await eventsB.waitFor('the log phase', () => messages.some((m) => m.includes('following the')), 180_000);
    await db.insert('markers', 1);
    const lines = await committed(second, eventsB, output, db, 'marker 1', (ls) => ls.some((l) => l.source.table === 'markers' && l.op === 'c' && l.after?.['id'] === 1));
    assert.deepEqual(eventsB.restored.map((r) => r.isSavepoint), [true], 'resumed from the savepoint');
    const seen = (re: RegExp, what: string) => assert.ok(messages.some((m) => re.test(m)), `${what}; the job's log:\n${messages.filter((m) => m.includes('table')).join('\n')}`);
    seen(/table \S*gone no longer matches the source's patterns: dropped from the state, not snapshotted further/, 'gone leaves the enumerator\'s state with a log line');
    seen(/table \S*later matches the source's patterns and was not in the restored snapshot/, 'later joins the snapshot');
    assert.equal(lines.filter((l) => l.source.table === 'gone').length, atStop.filter((l) => l.source.table === 'gone').length, 'nothing of gone after the stop');
    assert.ok(!lines.some((l) => l.source.table === 'gone' && l.op !== 'r'), 'no change of gone');
    const keptRows = await db.assertMatches(lines, 'kept');
    const laterRows = await db.assertMatches(lines, 'later');
    const leftOut = messages.filter((m) => /chunk \S+ of table \S*gone is left out/.test(m)).length;
    console.log(`${db.name}, savepoint during the snapshot: gone ${snapshotted('gone')(atStop)} of 5000 rows at the stop (${leftOut} restored chunk(s) left out); kept ${keptRows} rows; later ${laterRows} rows, ${snapshotted('later')(lines)} snapshotted`);
  } finally {
    await second.cancel().catch(() => {});
    await runningB;
  }
}

let mariadb: { server: MariaDbServer; sql: Sql } | undefined;
let postgres: { server: PostgresServer; sql: pg.Client } | undefined;
after(async () => {
  await mariadb?.sql.end();
  await mariadb?.server.stop();
  await postgres?.sql.end();
  await postgres?.server.stop();
});

async function onMariaDb(): Promise<Db> {
  if (!mariadb) {
    const server = await startMariaDb();
    mariadb = { server, sql: await connect(server) };
  }
  const { server, sql } = mariadb;
  return {
    name: 'mariadb',
    drop: async (table) => void (await sql.query(`DROP TABLE IF EXISTS ${table}`)),
    createOrders: (table, rows) => createOrders(sql, table, rows),
    workload: (table, seed, operations, maxKey) => runWorkload(sql, table, { seed, operations, maxKey }),
    insert: async (table, id) => void (await sql.query(`INSERT INTO ${table} (id, customer, amount, updated) VALUES (${id}, 'x', 1, NOW(3))`)),
    source: (tables) => new MySqlCdcSource({ ...server.connectionOptions(), database: 'test', tables, serverId: '6700-6703', chunkSize: 500, scanNewlyAddedTables: true }) as unknown as Source<unknown, unknown>,
    line: (r) => changeLine(r as ChangeRecord),
    parse: (lines) => parseChangeLines(lines),
    assertMatches: (lines, table) => assertChangeStreamMatchesTable(server, lines as ChangeLine[], table),
  };
}

/** `slot`: each scenario its own slot and publication (a slot keeps its position across jobs). */
async function onPostgres(slot: string): Promise<Db> {
  if (!postgres) {
    const server = await startPostgres();
    postgres = { server, sql: await connectPg(server) };
  }
  const { server, sql } = postgres;
  return {
    name: 'postgres',
    drop: async (table) => void (await sql.query(`DROP TABLE IF EXISTS ${table}`)),
    createOrders: (table, rows) => createPgOrders(sql, table, rows),
    workload: (table, seed, operations, maxKey) => runPgWorkload(sql, table, { seed, operations, maxKey }),
    insert: async (table, id) => void (await sql.query(`INSERT INTO ${table} (id, customer, amount, updated) VALUES (${id}, 'x', 1, now()::timestamp(3))`)),
    source: (tables) =>
      new PostgresCdcSource({ ...server.connectionOptions(), tables: tables.map((t) => `public.${t}`), slotName: slot, publicationName: `${slot}_pub`, chunkSize: 500, scanNewlyAddedTables: true, warn: () => {} }) as unknown as Source<unknown, unknown>,
    line: (r) => pgChangeLine(r as PostgresChangeRecord),
    parse: (lines) => parsePgChangeLines(lines),
    assertMatches: (lines, table) => assertPgChangeStreamMatchesTable(server, lines as PgChangeLine[], table),
  };
}

test('MariaDB: a table added to the patterns on resume from a savepoint is snapshotted, then followed; the old table loses no change; a table no longer matching leaves the state', { timeout: 600_000 }, async () => {
  await addedOnResumeFromSavepoint(await onMariaDb());
});

test('PostgreSQL: a table added to the patterns on resume from a savepoint is published, snapshotted, then followed; the old table loses no change; a table no longer matching leaves the state', { timeout: 600_000 }, async () => {
  await addedOnResumeFromSavepoint(await onPostgres('added_sp'));
});

test('MariaDB: other patterns on resume from a savepoint taken during the snapshot: the table no longer matching leaves it, the added one is snapshotted with the others', { timeout: 600_000 }, async () => {
  await changedDuringSnapshot(await onMariaDb());
});

test('PostgreSQL: other patterns on resume from a savepoint taken during the snapshot: the table no longer matching leaves it, the added one is published and snapshotted with the others', { timeout: 600_000 }, async () => {
  await changedDuringSnapshot(await onPostgres('during_sp'));
});
