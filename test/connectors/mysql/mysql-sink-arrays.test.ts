// Arrays into MySQL/MariaDB, which has no array types: a JS array goes to a JSON column (or a text
// one) as JSON text, in upsert and changelog modes; any other column fails at the first record
// with a ColumnMismatchError naming table, column and both types.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import { MySqlSink, type MySqlSinkOptions } from '../../../src/connectors/mysql/index.ts';
import { ColumnMismatchError } from '../../../src/connectors/postgres/index.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';
import { sinkContext } from '../../fixtures/sink-commit-idempotence.ts';

describe('MySqlSink array values', () => {
  let server: MariaDbServer;
  let conn: mysql.Connection;
  const options = (o: Partial<MySqlSinkOptions> & { table: string }): MySqlSinkOptions => ({ connection: { ...server.connectionOptions(), database: 'arrays' }, ...o });
  const rows = async (table: string) => (await conn.query(`SELECT id, CAST(tags AS CHAR) AS tags FROM ${table} ORDER BY id`))[0] as Array<{ id: number; tags: string | null }>;

  before(async () => {
    server = await startMariaDb();
    conn = await mysql.createConnection(server.connectionOptions());
    await conn.query('CREATE DATABASE arrays');
    await conn.query('USE arrays');
  });
  after(async () => {
    await conn?.end();
    await server?.stop();
  });

  async function write(sink: MySqlSink, records: readonly Record<string, unknown>[]): Promise<void> {
    const writer = await sink.createWriter(sinkContext());
    const committer = await sink.createCommitter(sinkContext());
    for (const r of records) writer.write(r);
    await committer.commit(await writer.prepareCommit(1));
    await writer.close!();
    await committer.close!();
  }

  test('upsert and changelog: arrays land in a JSON column as JSON arrays', async () => {
    await conn.query('CREATE TABLE tagged (id int PRIMARY KEY, tags json)');
    await write(new MySqlSink(options({ table: 'tagged', mode: 'upsert', key: ['id'] })), [
      { id: 1, tags: ['a', 'b "c"'] },
      { id: 2, tags: [[1, 2], null] },
      { id: 1, tags: ['a2'] },
    ]);
    await write(new MySqlSink(options({ table: 'tagged', mode: 'changelog', key: ['id'], transactionIdPrefix: 'changes' })), [
      { op: 'u', before: { id: 2, tags: [[1, 2], null] }, after: { id: 2, tags: [] } },
      { op: 'c', before: null, after: { id: 3, tags: [true] } },
    ]);
    const got = (await rows('tagged')).map((r) => [r.id, JSON.parse(r.tags!)]);
    assert.deepEqual(got, [
      [1, ['a2']],
      [2, []],
      [3, [true]],
    ]);
  });

  test('an array for a column that is neither JSON nor text names table and column', async () => {
    await conn.query('CREATE TABLE not_json (id int PRIMARY KEY, tags int)');
    const writer = await new MySqlSink(options({ table: 'not_json', mode: 'upsert', key: ['id'] })).createWriter(sinkContext());
    assert.throws(
      () => writer.write({ id: 1, tags: [1, 2] }),
      (e: unknown) => e instanceof ColumnMismatchError && /not_json/.test(e.table) && e.column === 'tags' && e.columnType === 'int' && e.fieldType === 'array' && /cannot hold record field tags \(array\)/.test(e.message),
    );
    await writer.abort!();
  });
});
