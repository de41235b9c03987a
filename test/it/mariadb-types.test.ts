// Every common column type, at its bounds, empty and NULL: a streamed SELECT through mysql2 with
// the column codec and the binlog's row images must both give exactly the expected JS values.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { TableSchemaCache, mysql2Runner, type BinlogEvent, type BinlogPosition, type Row } from '../../src/connectors/mysql/index.ts';
import { BinlogClient } from '../../src/connectors/mysql/binlog-client.ts';
import { detectGtidStrategy } from '../../src/connectors/mysql/gtid-strategy.ts';
import { prepareSnapshotConnection, snapshotTypeCast } from '../../src/connectors/mysql/column-codec.ts';
import { TYPE_CASES as CASES, TYPE_COLUMNS as COLUMNS, TYPES_TABLE as TABLE } from '../fixtures/column-types.ts';

let server: MariaDbServer;
let conn: mysql.Connection;

before(async () => {
  server = await startMariaDb();
  conn = mysql.createConnection({ ...server.connectionOptions(), database: 'test' });
  // The inserting session is in UTC too, so the TIMESTAMP literals below are UTC.
  await prepareSnapshotConnection(mysql2Runner(conn.promise()));
  await conn.promise().query(TABLE);
});

after(async () => {
  await conn?.promise().end();
  await server?.stop();
});

async function here(): Promise<BinlogPosition> {
  const runner = mysql2Runner(conn.promise());
  return (await detectGtidStrategy(runner)).currentPosition(runner);
}

async function select(): Promise<Row[]> {
  const rows: Row[] = [];
  const stream = conn.query({ sql: 'SELECT * FROM types ORDER BY id', typeCast: snapshotTypeCast }).stream();
  for await (const row of stream) rows.push(row as Row);
  return rows;
}

/** The row images of the transactions from `start` up to the commit that ends at `end`. */
async function binlogRows(start: BinlogPosition, end: BinlogPosition, image: 'before' | 'after'): Promise<Row[]> {
  const schemas = new TableSchemaCache(server.connectionOptions());
  const client = await BinlogClient.open({ ...server.connectionOptions(), serverId: 200, start: { kind: 'file', file: start.file, pos: start.pos }, schemas });
  const rows: Row[] = [];
  try {
    for (;;) {
      const ev: BinlogEvent | undefined = client.next();
      if (!ev) {
        await client.available();
        continue;
      }
      if (ev.type === 'rows') for (const r of ev.rows) rows.push(r[image]!);
      if (ev.type === 'commit' && ev.nextPos >= end.pos && ev.file === end.file) return rows;
    }
  } finally {
    await client.close();
    await schemas.close();
  }
}

test('every column type reads the same from a SELECT and from the binlog, exactly as expected', async () => {
  const start = await here();
  const q = conn.promise();
  await q.beginTransaction();
  for (const c of CASES) await q.query(`INSERT INTO types (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((k) => c.sql[k]).join(', ')})`);
  await q.commit();
  const end = await here();
  const expected = CASES.map((c) => c.expected);

  const selected = await select();
  assertRows(selected, expected, 'SELECT');
  const logged = await binlogRows(start, end, 'after');
  assertRows(logged, expected, 'binlog');
  assert.deepStrictEqual(logged, selected);

  // Before images decode the same way.
  const deleteStart = await here();
  await q.query('DELETE FROM types ORDER BY id');
  const deleted = await binlogRows(deleteStart, await here(), 'before');
  assertRows(deleted, expected, 'binlog before image');
});

/** Column by column first, so that a failure names the column (some values are 70 kB long). */
function assertRows(actual: Row[], expected: Row[], source: string): void {
  assert.equal(actual.length, expected.length, `${source}: row count`);
  for (let i = 0; i < expected.length; i++) {
    for (const column of Object.keys(expected[i]!)) {
      assert.deepStrictEqual(actual[i]![column], expected[i]![column], `${source}, row ${i + 1}, column ${column}`);
    }
    assert.deepStrictEqual(actual[i], expected[i], `${source}, row ${i + 1}`);
  }
}
