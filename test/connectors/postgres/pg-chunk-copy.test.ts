// A chunk's rows, the table's shape and the WAL position in one round trip (pg-chunk-copy.ts):
// rows decoded with a shape kept from an earlier chunk are read again when the table changed since.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';
import { copyRows, loadTableShape } from '../../../src/connectors/postgres/pg-chunk-copy.ts';
import type { CopyRowList } from '../../../src/connectors/postgres/copy-row-list.ts';
import { parseLsn } from '../../../src/connectors/postgres/lsn.ts';
import { PgSqlClient } from '../../../src/connectors/postgres/pg-sql-client.ts';
import { PgTypeCatalog } from '../../../src/connectors/postgres/pg-type-catalog.ts';

const all = (rows: CopyRowList) => Array.from({ length: rows.length }, (_, i) => rows.at(i));

let server: PostgresServer;
let admin: pg.Client;
let sql: PgSqlClient;
before(async () => {
  server = await startPostgres();
  admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  sql = await PgSqlClient.connect(server.connectionOptions());
});
after(async () => {
  await sql?.close();
  await admin?.end();
  await server?.stop();
});

test("a table's shape: columns in order with their types, the primary key in the key's order", async () => {
  await admin.query('CREATE TABLE two_keys (a text, b int, c int8, PRIMARY KEY (c, a))');
  const shape = await loadTableShape(sql, new PgTypeCatalog(), 'public', 'two_keys');
  assert.deepEqual(shape.columns.map((c) => c.name), ['a', 'b', 'c']);
  assert.deepEqual(shape.columns.map((c) => c.oid), [25, 23, 20]);
  assert.deepEqual(shape.key, ['c', 'a']);
  await admin.query('CREATE TABLE no_key (a int)');
  assert.deepEqual((await loadTableShape(sql, new PgTypeCatalog(), 'public', 'no_key')).key, []);
});

test('rows with the WAL insert position after them; a shape from before a column was added, retyped or dropped is refreshed and the rows read again', async () => {
  await admin.query('CREATE TABLE items (id int PRIMARY KEY, qty int, name text)');
  await admin.query(`INSERT INTO items VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')`);
  const catalog = new PgTypeCatalog();
  const first = await copyRows(sql, catalog, 'public', 'items', 'id >= 2');
  assert.deepEqual(all(first.rows), [{ id: 2, qty: 20, name: 'b' }, { id: 3, qty: 30, name: 'c' }]);
  const [now] = (await admin.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn')).rows;
  assert.ok(parseLsn(first.insertLsn) <= parseLsn(now!.lsn) && parseLsn(first.insertLsn) > 0n);

  await admin.query('ALTER TABLE items ADD COLUMN note text');
  const added = await copyRows(sql, catalog, 'public', 'items', 'id = 1', first.shape);
  assert.deepEqual(all(added.rows), [{ id: 1, qty: 10, name: 'a', note: null }]);
  assert.deepEqual(added.shape.columns.map((c) => c.name), ['id', 'qty', 'name', 'note']);

  await admin.query('ALTER TABLE items ALTER COLUMN qty TYPE int8');
  const retyped = await copyRows(sql, catalog, 'public', 'items', 'id = 1', added.shape);
  assert.deepEqual(all(retyped.rows), [{ id: 1, qty: 10n, name: 'a', note: null }]);

  await admin.query('ALTER TABLE items DROP COLUMN name');
  const dropped = await copyRows(sql, catalog, 'public', 'items', 'id = 1', retyped.shape);
  assert.deepEqual(all(dropped.rows), [{ id: 1, qty: 10n, note: null }]);
  assert.deepEqual(dropped.shape.key, ['id']);
});
