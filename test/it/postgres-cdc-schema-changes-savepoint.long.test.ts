// Schema changes across a stop-with-savepoint on PostgreSQL (includeSchemaChanges), the
// counterpart of cdc-schema-changes-savepoint.test.ts: a PostgreSQL CDC job commits a change and
// rows after it, a column is renamed, the job stops with a savepoint; while it is stopped rows of
// the renamed shape are written, the table is retyped and truncated, with rows after each; after
// the resume a column is dropped. PostgreSQL reports a
// column change with the RELATION message before the table's next row, so the resumed job finds
// the changes made while stopped by diffing against the savepoint's schema. The job commits each
// DDL once and every row with the schema version and columns it was written with, line for line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type pg from 'pg';
import { createJobMaster, createLogger, defineJob } from '../../src/index.ts';
import { FileSink, onCheckpointRollingPolicy } from '../../src/connectors/file/index.ts';
import { PostgresCdcSource, type PostgresChangeRecord } from '../../src/connectors/postgres/index.ts';
import type { CdcChangeRecord } from '../../src/connectors/cdc/change-record.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { connectPg } from '../fixtures/pg-cdc-workload.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { describeRecord } from '../fixtures/cdc-schema-scenario.ts';

const ROWS = 500;
const PER_STEP = 50;

let server: PostgresServer;
let sql: pg.Client;
let root: string;
before(async () => {
  server = await startPostgres();
  sql = await connectPg(server);
  root = makeTempDir('pg-cdc-schema-savepoint');
});
after(async () => {
  await sql?.end();
  await server?.stop();
  removeDir(root);
});

const inserts = (first: number, n: number, columns: string, row: (i: number) => string) => `INSERT INTO items (${columns}) VALUES ${Array.from({ length: n }, (_, k) => `(${row(first + k)})`).join(', ')}`;

test('PostgreSQL: schema changes across a stop-with-savepoint: rows before and after each ALTER and a TRUNCATE, also those written while the job was stopped, decode by their schema; each DDL once', { timeout: 180_000 }, async () => {
  await sql.query('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), qty INT)');
  await sql.query('CREATE TABLE markers (id INT PRIMARY KEY)');
  await sql.query(inserts(1, ROWS, 'id, name, qty', (i) => `${i}, 'n${i}', ${i}`));
  const output = join(root, 'output');
  const source = new PostgresCdcSource({
    ...server.connectionOptions(),
    tables: ['public.items', 'public.markers'],
    slotName: 'schema_savepoint',
    publicationName: 'schema_savepoint_pub',
    chunkSize: 200,
    includeSchemaChanges: true,
    warn: () => {},
  });
  const job = defineJob((env) => {
    env.enableCheckpointing(100);
    env
      .fromSource(source, { name: 'Source: cdc', uid: 'cdc' })
      .map((r: PostgresChangeRecord) => describeRecord(r as unknown as CdcChangeRecord), { name: 'Describe' })
      .sinkTo(new FileSink<string>(output, { rollingPolicy: onCheckpointRollingPolicy() }), { name: 'Sink: files', uid: 'sink' });
  });
  const config = { 'parallelism.default': 1, 'execution.checkpointing.dir': join(root, 'checkpoints'), 'restart-strategy.type': 'none' };
  const committed = (events: JobEvents, what: string, done: (lines: string[]) => boolean) =>
    new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; committed: ${readCommittedLines(output).filter((l) => !l.startsWith('r ')).slice(-10).join(' | ')}`)), 90_000);
      events.onCompleted = () => {
        const lines = readCommittedLines(output);
        if (done(lines)) {
          clearTimeout(timer);
          resolve(lines);
        }
      };
    });
  const hasMarker = (id: number) => (lines: string[]) => lines.includes(`c markers v0 {id=${id}}`);
  let next = ROWS + 1;
  const step = async (ddl: string, columns: string, row: (i: number) => string) => {
    await sql.query(ddl);
    await sql.query(inserts(next, PER_STEP, columns, row));
    next += PER_STEP;
  };

  const eventsA = new JobEvents();
  const first = await createJobMaster({ job, config, listener: eventsA.listener, log: createLogger({ level: 'error', write: () => {} }) });
  const runningA = first.run();
  await committed(eventsA, 'the snapshot', (lines) => lines.filter((l) => l.startsWith('r items')).length === ROWS);
  // The WAL phase is open (its schemas taken) once a change after the snapshot is committed.
  await sql.query('INSERT INTO markers VALUES (1)');
  await committed(eventsA, 'marker 1', hasMarker(1));
  await step('ALTER TABLE items ADD COLUMN note VARCHAR(10)', 'id, name, qty, note', (i) => `${i}, 'n${i}', ${i}, 'x${i}'`);
  await sql.query('INSERT INTO markers VALUES (2)');
  await committed(eventsA, 'marker 2', hasMarker(2));
  // Rows of the version before the next change, the change, then the stop: PostgreSQL reports
  // the rename with the next row, written while stopped, so the savepoint holds the schema before it.
  await sql.query(inserts(next, PER_STEP, 'id, name, qty, note', (i) => `${i}, 'n${i}', ${i}, 'x${i}'`));
  next += PER_STEP;
  await sql.query('ALTER TABLE items RENAME COLUMN name TO title');
  const savepoint = await first.stopWithSavepoint(join(root, 'savepoints'));
  await runningA;
  await sql.query(inserts(next, PER_STEP, 'id, title, qty, note', (i) => `${i}, 't${i}', ${i}, 'x${i}'`));
  next += PER_STEP;
  await step('ALTER TABLE items ALTER COLUMN qty TYPE bigint', 'id, title, qty, note', (i) => `${i}, 't${i}', ${i * 1_000_000_000}, 'x${i}'`);
  const truncatedBelow = next;
  await step('TRUNCATE TABLE items', 'id, title, qty, note', (i) => `${i}, 'u${i}', ${i}, 'y${i}'`);

  const eventsB = new JobEvents();
  const second = await createJobMaster({ job, config, restoreFrom: savepoint.directory, listener: eventsB.listener, log: createLogger({ level: 'error', write: () => {} }) });
  const runningB = second.run();
  try {
    await step('ALTER TABLE items DROP COLUMN note', 'id, title, qty', (i) => `${i}, 't${i}', ${i}`);
    await sql.query('INSERT INTO markers VALUES (3)');
    const lines = await committed(eventsB, 'marker 3', hasMarker(3));
    assert.deepEqual(eventsB.restored.map((r) => r.isSavepoint), [true]);

    const expected: string[] = ['c markers v0 {id=1}', 'c markers v0 {id=2}', 'c markers v0 {id=3}'];
    for (let i = 1; i <= ROWS; i++) expected.push(`r items vundefined {id=${i},name=n${i},qty=${i}}`);
    let id = ROWS + 1;
    const rows = (n: number, row: (i: number) => string) => {
      for (let k = 0; k < n; k++) expected.push(row(id++));
    };
    expected.push('ddl items add.column v1 [id,name,qty,note]');
    rows(2 * PER_STEP, (i) => `c items v1 {id=${i},name=n${i},qty=${i},note=x${i}}`);
    expected.push('ddl items rename.column v2 [id,title,qty,note]');
    rows(PER_STEP, (i) => `c items v2 {id=${i},title=t${i},qty=${i},note=x${i}}`);
    expected.push('ddl items alter.column.type v3 [id,title,qty,note]');
    rows(PER_STEP, (i) => `c items v3 {id=${i},title=t${i},qty=${i * 1_000_000_000},note=x${i}}`);
    assert.equal(id, truncatedBelow);
    expected.push('ddl items truncate.table v3 [id,title,qty,note]');
    rows(PER_STEP, (i) => `c items v3 {id=${i},title=u${i},qty=${i},note=y${i}}`);
    expected.push('ddl items drop.column v4 [id,title,qty]');
    rows(PER_STEP, (i) => `c items v4 {id=${i},title=t${i},qty=${i}}`);
    assert.deepEqual([...lines].sort(), expected.sort(), 'the committed lines, across the stop');
    console.log(`${lines.length} committed lines, ${lines.filter((l) => l.startsWith('ddl')).length} DDL`);
  } finally {
    await second.cancel();
    await runningB;
  }
});
