// Schema changes across a stop-with-savepoint (includeSchemaChanges): a MariaDB CDC job commits a
// change and rows after it, stops with a savepoint; while it is stopped the table is changed again
// and rows of both shapes are written; the job resumed from the savepoint commits each DDL once and
// every row with the schema version and columns it was written with, record for record.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, defineJob } from '../../src/index.ts';
import { FileSink, onCheckpointRollingPolicy } from '../../src/connectors/file/index.ts';
import { MySqlCdcSource, type ChangeRecord } from '../../src/connectors/mysql/index.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, type Sql } from '../fixtures/cdc-workload.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { describeRecord } from '../fixtures/cdc-schema-scenario.ts';

const ROWS = 500;
const PER_STEP = 50;

let server: MariaDbServer;
let sql: Sql;
let root: string;
before(async () => {
  server = await startMariaDb();
  sql = await connect(server);
  await sql.query('SET GLOBAL binlog_row_metadata = FULL');
  root = makeTempDir('cdc-schema-savepoint');
});
after(async () => {
  await sql?.end();
  await server?.stop();
  removeDir(root);
});

const inserts = (first: number, n: number, columns: string, row: (i: number) => string) => `INSERT INTO items (${columns}) VALUES ${Array.from({ length: n }, (_, k) => `(${row(first + k)})`).join(', ')}`;

test('schema changes across a stop-with-savepoint: rows before and after each ALTER, also those written while the job was stopped, decode by their schema; each DDL once', { timeout: 180_000 }, async () => {
  await sql.query('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), qty INT)');
  await sql.query('CREATE TABLE markers (id INT PRIMARY KEY)');
  await sql.query(inserts(1, ROWS, 'id, name, qty', (i) => `${i}, 'n${i}', ${i}`));
  const output = join(root, 'output');
  const source = new MySqlCdcSource({ ...server.connectionOptions(), database: 'test', tables: ['items', 'markers'], serverId: '6600-6601', chunkSize: 200, includeSchemaChanges: true });
  const job = defineJob((env) => {
    env.enableCheckpointing(100);
    env
      .fromSource(source, { name: 'Source: cdc', uid: 'cdc' })
      .map((r: ChangeRecord) => describeRecord(r), { name: 'Describe' })
      .sinkTo(new FileSink<string>(output, { rollingPolicy: onCheckpointRollingPolicy() }), { name: 'Sink: files', uid: 'sink' });
  });
  const config = { 'parallelism.default': 1, 'execution.checkpointing.dir': join(root, 'checkpoints'), 'restart-strategy.type': 'none' };
  const committed = (events: JobEvents, what: string, done: (lines: string[]) => boolean) =>
    new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), 90_000);
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
  // The log phase is open (its schemas taken) once a change after the snapshot is committed.
  await sql.query('INSERT INTO markers VALUES (1)');
  await committed(eventsA, 'marker 1', hasMarker(1));
  await step('ALTER TABLE items ADD COLUMN note VARCHAR(10)', 'id, name, qty, note', (i) => `${i}, 'n${i}', ${i}, 'x${i}'`);
  await sql.query('INSERT INTO markers VALUES (2)');
  await committed(eventsA, 'marker 2', hasMarker(2));
  // Rows of the version before the next change, then the stop; the change comes while stopped.
  await sql.query(inserts(next, PER_STEP, 'id, name, qty, note', (i) => `${i}, 'n${i}', ${i}, 'x${i}'`));
  next += PER_STEP;
  const savepoint = await first.stopWithSavepoint(join(root, 'savepoints'));
  await runningA;
  await step('ALTER TABLE items RENAME COLUMN name TO title', 'id, title, qty, note', (i) => `${i}, 't${i}', ${i}, 'x${i}'`);
  await step('ALTER TABLE items MODIFY COLUMN qty BIGINT', 'id, title, qty, note', (i) => `${i}, 't${i}', ${i * 1_000_000_000}, 'x${i}'`);

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
    expected.push('ddl items drop.column v4 [id,title,qty]');
    rows(PER_STEP, (i) => `c items v4 {id=${i},title=t${i},qty=${i}}`);
    assert.deepEqual([...lines].sort(), expected.sort(), 'the committed lines, across the stop');
  } finally {
    await second.cancel();
    await runningB;
  }
});
