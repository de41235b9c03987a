// A restore whose checkpoint holds a schema the server no longer has (MariaDB without
// binlog_row_metadata = FULL, so the binlog is decoded with the tables' schemas now): a table
// altered or dropped while the job was stopped, with rows of the old shape still to be replayed,
// fails with a typed error naming table and position, never a silent wrong decode.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MySqlDialect } from '../../src/connectors/mysql/mysql-dialect.ts';
import { resolveCdcOptions } from '../../src/connectors/mysql/mysql-cdc-options.ts';
import { CdcSchemaChangeError } from '../../src/connectors/cdc/cdc-schema-error.ts';
import { BinlogSchemaError } from '../../src/connectors/mysql/binlog-error.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, type Sql } from '../fixtures/cdc-workload.ts';
import { CdcReaderHarness, currentLogPosition, logSplitFrom } from '../fixtures/cdc-reader-harness.ts';

let server: MariaDbServer;
let sql: Sql;
before(async () => {
  server = await startMariaDb();
  sql = await connect(server);
  await sql.query('SET GLOBAL binlog_row_metadata = MINIMAL');
});
after(async () => {
  await sql?.end();
  await server?.stop();
});

function dialect(table: string, serverId: number): MySqlDialect {
  return new MySqlDialect(resolveCdcOptions({ ...server.connectionOptions(), database: 'test', tables: [table], serverId }));
}

/** A reader that followed `table`'s first row, stopped: its checkpoint holds the table's schema then. */
async function checkpointAfterFirstRow(table: string, serverId: number) {
  const d = dialect(table, serverId);
  const h = await CdcReaderHarness.start(d, [logSplitFrom(await currentLogPosition(d))]);
  try {
    await sql.query(`INSERT INTO ${table} VALUES (1, 1, 1)`);
    await h.until((r) => r.length >= 1);
    return h.checkpoint(1);
  } finally {
    await h.close();
  }
}

async function restoreError(table: string, serverId: number, state: Awaited<ReturnType<typeof checkpointAfterFirstRow>>): Promise<unknown> {
  const h = await CdcReaderHarness.start(dialect(table, serverId), state);
  try {
    return await h.until(() => false, 60_000).then(() => undefined, (e: unknown) => e);
  } finally {
    await h.close();
  }
}

test('MariaDB: a column renamed while the job was stopped, with rows of the old shape to replay, fails the restore with an error naming table and position (not rows under the new name)', { timeout: 120_000 }, async () => {
  await sql.query('CREATE TABLE renamed (id INT PRIMARY KEY, a INT, b INT)');
  const state = await checkpointAfterFirstRow('renamed', 6501);
  await sql.query('INSERT INTO renamed VALUES (2, 2, 2)');
  await sql.query('ALTER TABLE renamed CHANGE COLUMN a c INT');
  await sql.query('INSERT INTO renamed VALUES (3, 3, 3)');
  const error = await restoreError('renamed', 6502, state);
  assert.ok(error instanceof CdcSchemaChangeError, `got ${String(error)}`);
  assert.equal(error.reason, 'stale-schema');
  assert.equal(error.table, 'renamed');
  assert.match(error.position, /^binlog\.\d+:\d+$/);
  assert.match(error.message, /test\.renamed cannot be followed past binlog\.\d+:\d+: its row at .* was decoded with columns \(id, c, b\), but the table had \(id, a, b\)/);
});

test('MariaDB: a table dropped while the job was stopped, with rows to replay, fails the restore with an error naming table and position', { timeout: 120_000 }, async () => {
  await sql.query('CREATE TABLE gone (id INT PRIMARY KEY, a INT, b INT)');
  const state = await checkpointAfterFirstRow('gone', 6503);
  await sql.query('INSERT INTO gone VALUES (2, 2, 2)');
  await sql.query('DROP TABLE gone');
  const error = await restoreError('gone', 6504, state);
  assert.ok(error instanceof BinlogSchemaError, `got ${String(error)}`);
  assert.equal(error.table, 'gone');
  assert.match(String(error.file), /^binlog\.\d+$/);
  assert.ok((error.pos ?? 0) > 0);
  assert.match(error.message, /table test\.gone/);
});
