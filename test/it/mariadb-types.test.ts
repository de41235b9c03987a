// Every common column type, at its bounds, empty and NULL: a streamed SELECT through mysql2 with
// the column codec and the binlog's row images must both give exactly the expected JS values.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import {
  BinlogClient,
  TableSchemaCache,
  detectGtidStrategy,
  mysql2Runner,
  prepareSnapshotConnection,
  snapshotTypeCast,
  type BinlogEvent,
  type BinlogPosition,
  type Row,
} from '../../src/connectors/mysql/index.ts';

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

const TABLE = `CREATE TABLE types (
  id INT PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
  bi BIGINT, biu BIGINT UNSIGNED,
  f FLOAT, f74 FLOAT(7,4), d DOUBLE, d103 DOUBLE(10,3),
  dec62 DECIMAL(6,2), dec6530 DECIMAL(65,30), dec100 DECIMAL(10,0),
  ch CHAR(10), ch4 CHAR(100), vc VARCHAR(300), vl VARCHAR(20) CHARACTER SET latin1,
  tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT,
  bn BINARY(8), vb VARBINARY(300), tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
  dd DATE, dt0 DATETIME, dt3 DATETIME(3), dt6 DATETIME(6),
  ts0 TIMESTAMP NULL DEFAULT NULL, ts3 TIMESTAMP(3) NULL DEFAULT NULL, ts6 TIMESTAMP(6) NULL DEFAULT NULL,
  t0 TIME, t3 TIME(3), t6 TIME(6),
  y YEAR,
  e ENUM('small', 'medium', 'large', 'it''s'), st SET('a', 'b', 'c', 'd'),
  b1 BIT(1), b10 BIT(10), b64 BIT(64),
  j JSON,
  g POINT
) DEFAULT CHARSET = utf8mb4`;

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
const MEDIUM_BYTES = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7) % 251));
const hex = (b: Buffer) => (b.length === 0 ? "''" : `X'${b.toString('hex')}'`);

/** MySQL's internal geometry: SRID (0), then WKB (little-endian) of a point. */
function point(x: number, y: number): Buffer {
  const b = Buffer.alloc(25);
  b.writeUInt32LE(0, 0);
  b[4] = 1;
  b.writeUInt32LE(1, 5);
  b.writeDoubleLE(x, 9);
  b.writeDoubleLE(y, 17);
  return b;
}

/** Each case: the SQL literals inserted and the values expected back, column by column. */
const CASES: Array<{ sql: Record<string, string>; expected: Row }> = [
  {
    // Upper bounds.
    sql: {
      id: '1', ti: '127', tiu: '255', si: '32767', siu: '65535', mi: '8388607', miu: '16777215', i: '2147483647', iu: '4294967295',
      bi: '9223372036854775807', biu: '18446744073709551615',
      f: '1.2345678', f74: '3.14159265', d: '1.7976931348623157e308', d103: '1234.5678',
      dec62: '9999.99', dec6530: `${'9'.repeat(35)}.${'9'.repeat(30)}`, dec100: '9999999999',
      ch: "'abc  '", ch4: `'${'😀'.repeat(100)}'`, vc: `'${'é'.repeat(300)}'`, vl: "'café € ÿ'",
      tt: "'tiny'", tx: "'ünïcødé ✓ 😀'", mt: `'${'m'.repeat(70_000)}'`, lt: `'{"long": true}'`,
      bn: "X'0102'", vb: "X'00ff00'", tb: "X'7f'", bl: hex(ALL_BYTES), mb: hex(MEDIUM_BYTES), lb: "X'deadbeef'",
      dd: "'9999-12-31'", dt0: "'9999-12-31 23:59:59'", dt3: "'9999-12-31 23:59:59.999'", dt6: "'9999-12-31 23:59:59.999999'",
      ts0: "'2038-01-19 03:14:07'", ts3: "'2038-01-19 03:14:07.999'", ts6: "'2038-01-19 03:14:07.999999'",
      t0: "'838:59:59'", t3: "'838:59:59.999'", t6: "'838:59:59.999999'",
      y: '2155', e: "'it''s'", st: "'d,a'", b1: "b'1'", b10: "b'1000000001'", b64: "X'ffffffffffffffff'",
      j: `'{"a": [1, 2.5, "x"], "b": null}'`, g: "ST_GeomFromText('POINT(1 2)')",
    },
    expected: {
      id: 1, ti: 127, tiu: 255, si: 32767, siu: 65535, mi: 8388607, miu: 16777215, i: 2147483647, iu: 4294967295,
      bi: 9223372036854775807n, biu: 18446744073709551615n,
      f: 1.23457, f74: 3.1416, d: 1.7976931348623157e308, d103: 1234.568,
      dec62: '9999.99', dec6530: `${'9'.repeat(35)}.${'9'.repeat(30)}`, dec100: '9999999999',
      ch: 'abc', ch4: '😀'.repeat(100), vc: 'é'.repeat(300), vl: 'café € ÿ',
      tt: 'tiny', tx: 'ünïcødé ✓ 😀', mt: 'm'.repeat(70_000), lt: '{"long": true}',
      bn: Buffer.from([1, 2, 0, 0, 0, 0, 0, 0]), vb: Buffer.from([0, 255, 0]), tb: Buffer.from([0x7f]), bl: ALL_BYTES, mb: MEDIUM_BYTES, lb: Buffer.from('deadbeef', 'hex'),
      dd: '9999-12-31', dt0: '9999-12-31 23:59:59', dt3: '9999-12-31 23:59:59.999', dt6: '9999-12-31 23:59:59.999999',
      ts0: '2038-01-19T03:14:07Z', ts3: '2038-01-19T03:14:07.999Z', ts6: '2038-01-19T03:14:07.999999Z',
      t0: '838:59:59', t3: '838:59:59.999', t6: '838:59:59.999999',
      y: 2155, e: "it's", st: 'a,d', b1: true, b10: 513n, b64: 18446744073709551615n,
      j: '{"a": [1, 2.5, "x"], "b": null}', g: point(1, 2),
    },
  },
  {
    // Lower bounds, negatives and empty values.
    sql: {
      id: '2', ti: '-128', tiu: '0', si: '-32768', siu: '0', mi: '-8388608', miu: '0', i: '-2147483648', iu: '0',
      bi: '-9223372036854775808', biu: '0',
      f: '-1.5', f74: '-0.0001', d: '-2.2250738585072014e-308', d103: '-0.001',
      dec62: '-12.5', dec6530: `-0.${'0'.repeat(29)}1`, dec100: '-1',
      ch: "''", ch4: "' a'", vc: "'x  '", vl: "''",
      tt: "''", tx: "''", mt: "''", lt: "''",
      bn: "''", vb: "''", tb: "''", bl: "''", mb: "''", lb: "''",
      dd: "'1000-01-01'", dt0: "'1000-01-01 00:00:00'", dt3: "'1000-01-01 00:00:00.000'", dt6: "'1000-01-01 00:00:00.000001'",
      ts0: "'1970-01-01 00:00:01'", ts3: "'1970-01-01 00:00:01.001'", ts6: "'2000-02-29 12:00:00.5'",
      t0: "'-838:59:59'", t3: "'-01:02:03.456'", t6: "'-00:00:00.000001'",
      y: '1901', e: "'small'", st: "''", b1: "b'0'", b10: "b'0'", b64: "b'1'",
      j: "'[]'", g: "ST_GeomFromText('POINT(-1.5 0)')",
    },
    expected: {
      id: 2, ti: -128, tiu: 0, si: -32768, siu: 0, mi: -8388608, miu: 0, i: -2147483648, iu: 0,
      bi: -9223372036854775808n, biu: 0n,
      f: -1.5, f74: -0.0001, d: -2.2250738585072014e-308, d103: -0.001,
      dec62: '-12.50', dec6530: `-0.${'0'.repeat(29)}1`, dec100: '-1',
      ch: '', ch4: ' a', vc: 'x  ', vl: '',
      tt: '', tx: '', mt: '', lt: '',
      bn: Buffer.alloc(8), vb: Buffer.alloc(0), tb: Buffer.alloc(0), bl: Buffer.alloc(0), mb: Buffer.alloc(0), lb: Buffer.alloc(0),
      dd: '1000-01-01', dt0: '1000-01-01 00:00:00', dt3: '1000-01-01 00:00:00.000', dt6: '1000-01-01 00:00:00.000001',
      ts0: '1970-01-01T00:00:01Z', ts3: '1970-01-01T00:00:01.001Z', ts6: '2000-02-29T12:00:00.500000Z',
      t0: '-838:59:59', t3: '-01:02:03.456', t6: '-00:00:00.000001',
      y: 1901, e: 'small', st: '', b1: false, b10: 0n, b64: 1n,
      j: '[]', g: point(-1.5, 0),
    },
  },
  {
    // Zeros, zero dates, small BIGINTs, rounding ties and trailing bytes.
    sql: {
      id: '3', ti: '0', tiu: '1', si: '0', siu: '1', mi: '0', miu: '1', i: '0', iu: '1',
      bi: '5', biu: '5',
      f: '1234565', f74: '0', d: '-0.0', d103: '0.1',
      dec62: '0', dec6530: '0.5', dec100: '0',
      ch: "'x'", ch4: "'y'", vc: "'z'", vl: "'ÿ'",
      tt: "'a'", tx: "'b'", mt: "'c'", lt: "'d'",
      bn: "X'01000000'", vb: "X'000000'", tb: "X'00'", bl: "X'0000'", mb: "X'01'", lb: "X'00'",
      dd: "'0000-00-00'", dt0: "'0000-00-00 00:00:00'", dt3: "'0000-00-00 00:00:00.000'", dt6: "'2024-02-29 12:34:56.123456'",
      ts0: "'0000-00-00 00:00:00'", ts3: "'0000-00-00 00:00:00.000'", ts6: "'2024-02-29 12:34:56.000001'",
      t0: "'00:00:00'", t3: "'00:00:00.000'", t6: "'-12:00:00.5'",
      y: '0', e: "'large'", st: "'a,b,c,d'", b1: "b'1'", b10: "b'1111111111'", b64: "X'8000000000000000'",
      j: `'{"emoji":"😀","n":-0.5e10}'`, g: "ST_GeomFromText('POINT(0 0)')",
    },
    expected: {
      id: 3, ti: 0, tiu: 1, si: 0, siu: 1, mi: 0, miu: 1, i: 0, iu: 1,
      bi: 5n, biu: 5n,
      // 1234565 is a tie at 6 digits: the server rounds half to even.
      f: 1234560, f74: 0, d: 0, d103: 0.1,
      dec62: '0.00', dec6530: `0.5${'0'.repeat(29)}`, dec100: '0',
      ch: 'x', ch4: 'y', vc: 'z', vl: 'ÿ',
      tt: 'a', tx: 'b', mt: 'c', lt: 'd',
      bn: Buffer.from([1, 0, 0, 0, 0, 0, 0, 0]), vb: Buffer.from([0, 0, 0]), tb: Buffer.from([0]), bl: Buffer.from([0, 0]), mb: Buffer.from([1]), lb: Buffer.from([0]),
      dd: '0000-00-00', dt0: '0000-00-00 00:00:00', dt3: '0000-00-00 00:00:00.000', dt6: '2024-02-29 12:34:56.123456',
      ts0: '0000-00-00 00:00:00', ts3: '0000-00-00 00:00:00.000', ts6: '2024-02-29T12:34:56.000001Z',
      t0: '00:00:00', t3: '00:00:00.000', t6: '-12:00:00.500000',
      y: 0, e: 'large', st: 'a,b,c,d', b1: true, b10: 1023n, b64: 9223372036854775808n,
      j: '{"emoji":"😀","n":-0.5e10}', g: point(0, 0),
    },
  },
];

const COLUMNS = Object.keys(CASES[0]!.sql);
// NULL in every column.
CASES.push({
  sql: Object.fromEntries(COLUMNS.map((c) => [c, c === 'id' ? '4' : 'NULL'])),
  expected: Object.fromEntries(COLUMNS.map((c) => [c, c === 'id' ? 4 : null])),
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
