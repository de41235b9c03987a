// Schema changes followed from MariaDB's binlog (includeSchemaChanges): ADD, a type change,
// RENAME, DROP COLUMN, a CREATE TABLE matching the pattern and a TRUNCATE, each mid-stream with
// rows before and after, on a reader that runs through and on one restored after each change.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MySqlDialect } from '../../src/connectors/mysql/mysql-dialect.ts';
import { resolveCdcOptions, type MySqlCdcOptions } from '../../src/connectors/mysql/mysql-cdc-options.ts';
import type { MySqlLogPosition } from '../../src/connectors/mysql/cdc-split.ts';
import { CdcSchemaChangeError } from '../../src/connectors/cdc/cdc-schema-error.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, type Sql } from '../fixtures/cdc-workload.ts';
import { CdcReaderHarness, currentLogPosition, logSplitFrom } from '../fixtures/cdc-reader-harness.ts';
import { describeRecord, runSchemaScenario } from '../fixtures/cdc-schema-scenario.ts';

let server: MariaDbServer;
let sql: Sql;
before(async () => {
  server = await startMariaDb();
  sql = await connect(server);
  // Rows written before an ALTER and read after it decode by the binlog's own column names and types.
  await sql.query('SET GLOBAL binlog_row_metadata = FULL');
});
after(async () => {
  await sql?.end();
  await server?.stop();
});

function dialect(serverId: number, extra: Partial<MySqlCdcOptions> = {}): MySqlDialect {
  return new MySqlDialect(resolveCdcOptions({ ...server.connectionOptions(), database: 'test', tables: ['items*'], serverId, includeSchemaChanges: true, ...extra }));
}

test('MariaDB: each schema change comes in order with the rows, every row decodes by its schema, also across restores between a change and the next row', { timeout: 180_000 }, async () => {
  await sql.query('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), qty INT)');
  const steady = dialect(6101);
  const restored = dialect(6102);
  const start = await currentLogPosition(steady);
  const { steady: reader, restores } = await runSchemaScenario<MySqlLogPosition, never>({
    exec: async (q) => void (await sql.query(q)),
    retypeQty: 'ALTER TABLE items MODIFY COLUMN qty BIGINT',
    columnChangeWithNextRow: false,
    db: 'test',
    steady: steady as never,
    restored: restored as never,
    steadyStart: start,
    restoredStart: start,
  });
  assert.equal(restores, 5);
  // The statement's text is in the DDL record; the change is logged.
  const ddl = reader.records.find((r) => r.op === 'ddl')!;
  assert.equal(ddl.schemaChange?.statement, 'ALTER TABLE items ADD COLUMN note VARCHAR(10)');
  assert.ok(reader.lines.some((l) => l.level === 'info' && /schema change of test\.items at .*add\.column; version 1/.test(l.message)), 'the change is logged');
  // Per-table figures.
  const m = reader.reader.metrics();
  assert.equal(m['cdc_table_inserts:test.items'], 6);
  assert.equal(m['cdc_table_updates:test.items'], 1);
  assert.equal(m['cdc_table_schema_changes:test.items'], 5);
  assert.equal(m['cdc_table_inserts:test.items_2'], 1);
  await reader.close();
});

test('MariaDB: without includeSchemaChanges no DDL record comes and rows carry no version, yet a change is followed and logged; a DDL the parser does not know is logged with text and position and counted', { timeout: 120_000 }, async () => {
  await sql.query('CREATE TABLE quiet (id INT PRIMARY KEY, a INT)');
  const d = dialect(6103, { tables: ['quiet*'], includeSchemaChanges: false });
  const start = await currentLogPosition(d);
  const h = await CdcReaderHarness.start(d, [logSplitFrom(start)]);
  try {
    await sql.query('INSERT INTO quiet VALUES (1, 1)');
    await sql.query('ALTER TABLE quiet CHANGE COLUMN a b BIGINT');
    await sql.query('INSERT INTO quiet VALUES (2, 2)');
    // A statement node-sql-parser cannot read (MariaDB's WITH SYSTEM VERSIONING).
    await sql.query('CREATE TABLE quiet_v (id INT PRIMARY KEY) WITH SYSTEM VERSIONING');
    await sql.query('INSERT INTO quiet VALUES (3, 3)');
    await h.until((r) => r.length >= 3);
    assert.deepEqual(h.records.map((r) => describeRecord(r)), ['c quiet vundefined {id=1,a=1}', 'c quiet vundefined {id=2,b=2}', 'c quiet vundefined {id=3,b=3}']);
    assert.ok(h.lines.some((l) => l.level === 'info' && /schema change of test\.quiet .*rename\.column, alter\.column\.type; version 1/.test(l.message)), 'the change is logged');
    const warned = h.lines.find((l) => l.level === 'warn' && l.message.includes('not understood'));
    assert.ok(warned, 'the unparsed DDL is logged');
    assert.match(warned.message, /WITH SYSTEM VERSIONING/);
    assert.match(warned.message, /at binlog\.\d+:\d+/);
    assert.equal(h.reader.metrics()['binlog_ddl_unrecognized'], 1);
  } finally {
    await h.close();
  }
});

test("MariaDB: a table's primary key dropped while changes are still merged with its chunks fails with an error naming table and position", { timeout: 120_000 }, async () => {
  await sql.query('CREATE TABLE keyed (id INT PRIMARY KEY, a INT)');
  const d = dialect(6104, { tables: ['keyed'] });
  const start = await currentLogPosition(d);
  // A log split still merging with a finished chunk of `keyed` up to a HIGH far ahead.
  const split = { ...logSplitFrom(start), tables: [{ db: 'test', table: 'keyed', keyColumn: 'id', keyKind: 'integer' as const, chunks: [{ start: null, end: null, high: { file: start.file!, pos: 2 ** 31 } }] }], maxHigh: { file: start.file!, pos: 2 ** 31 } };
  const h = await CdcReaderHarness.start(d, [split]);
  try {
    await sql.query('ALTER TABLE keyed DROP PRIMARY KEY');
    const error = await h.until(() => false, 60_000).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof CdcSchemaChangeError, `got ${String(error)}`);
    assert.equal(error.table, 'keyed');
    assert.equal(error.reason, 'primary-key-dropped');
    assert.match(error.message, /test\.keyed cannot be followed past binlog\.\d+:\d+/);
  } finally {
    await h.close();
  }
});
