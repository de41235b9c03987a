// MySqlCdcSource over several databases: 'db.table' globs and RegExps over 'db.table' (with an
// escaped dot) pick tables of other databases besides `database`'s own; the catalog lists them for
// the snapshot and the binlog phase follows their rows and schema changes, and no other table's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MySqlDialect } from '../../src/connectors/mysql/mysql-dialect.ts';
import { resolveCdcOptions, tableMatches } from '../../src/connectors/mysql/mysql-cdc-options.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, type Sql } from '../fixtures/cdc-workload.ts';
import { CdcReaderHarness, currentLogPosition, logSplitFrom } from '../fixtures/cdc-reader-harness.ts';
import { describeRecord } from '../fixtures/cdc-schema-scenario.ts';

test("table patterns: bare names are the source database's, 'db.table' globs and RegExps with an escaped dot name the database", () => {
  const o = resolveCdcOptions({ host: 'h', port: 1, user: 'u', password: 'p', database: 'test', tables: ['local', 'app_*.orders', /^shop\d\.item_\d+$/, /^log_/] });
  const captured = [
    ['test', 'local'],
    ['app_eu', 'orders'],
    ['shop1', 'item_7'],
    ['test', 'log_1'],
  ];
  for (const [db, t] of captured) assert.ok(tableMatches(o, t!, db), `${db}.${t}`);
  for (const [db, t] of [['other', 'local'], ['app_eu', 'items'], ['shop1', 'item_x'], ['other', 'log_1'], ['shop12', 'item_1']]) assert.ok(!tableMatches(o, t!, db), `${db}.${t}`);
});

let server: MariaDbServer;
let sql: Sql;
before(async () => {
  server = await startMariaDb();
  sql = await connect(server);
  for (const db of ['app1', 'app2', 'other']) await sql.query(`CREATE DATABASE ${db}`);
  for (const t of ['app1.orders', 'app2.orders', 'app1.skip', 'other.orders', 'test.local', 'test.unlisted']) await sql.query(`CREATE TABLE ${t} (id INT PRIMARY KEY, v INT)`);
});
after(async () => {
  await sql?.end();
  await server?.stop();
});

test('MariaDB: tables of several databases are listed for the snapshot and followed in the binlog, with their schema changes', { timeout: 120_000 }, async () => {
  const dialect = new MySqlDialect(resolveCdcOptions({ ...server.connectionOptions(), database: 'test', tables: [/^app\d\.orders$/, 'local'], serverId: 6201, includeSchemaChanges: true }));
  const catalog = await dialect.connectCatalog();
  try {
    assert.deepEqual((await catalog.listTables()).map((t) => `${t.db}.${t.table}`), ['app1.orders', 'app2.orders', 'test.local']);
  } finally {
    await catalog.close();
  }
  const h = await CdcReaderHarness.start(dialect, [logSplitFrom(await currentLogPosition(dialect))]);
  try {
    for (const t of ['app1.orders', 'app2.orders', 'app1.skip', 'other.orders', 'test.local', 'test.unlisted']) await sql.query(`INSERT INTO ${t} VALUES (1, 1)`);
    await sql.query('ALTER TABLE app2.orders ADD COLUMN note VARCHAR(8)');
    await sql.query(`INSERT INTO app2.orders VALUES (2, 2, 'x')`);
    await h.until((r) => r.length >= 5);
    assert.deepEqual(
      h.records.map((r) => `${(r.source as { db: string }).db}: ${describeRecord(r)}`),
      ['app1: c orders v0 {id=1,v=1}', 'app2: c orders v0 {id=1,v=1}', 'test: c local v0 {id=1,v=1}', 'app2: ddl orders add.column v1 [id,v,note]', 'app2: c orders v1 {id=2,v=2,note=x}'],
    );
  } finally {
    await h.close();
  }
});
