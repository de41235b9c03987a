import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';
import { PgLogReader } from '../../../src/connectors/postgres/pg-log-reader.ts';
import { parseLsn } from '../../../src/connectors/postgres/lsn.ts';
import { PgSqlClient } from '../../../src/connectors/postgres/pg-sql-client.ts';
import { PgTypeCatalog } from '../../../src/connectors/postgres/pg-type-catalog.ts';
import { selectRows } from '../../../src/connectors/postgres/pg-table-rows.ts';
import type { PgChangeRecord, RowImage } from '../../../src/connectors/postgres/pg-change-record.ts';

const COLUMNS = `
  id int PRIMARY KEY,
  num numeric, num_s numeric(12,4), i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
  txt text, vc varchar(20), ch char(5), by bytea, b bool,
  d date, tm time, ttz timetz, ts timestamp, tstz timestamptz, iv interval,
  u uuid, j json, jb jsonb,
  ai int4[], at text[], a2 int8[][], ae mood[], an numeric[],
  e mood, ip inet, net cidr, m money, dm posint`;

// Edge values per type; every column NULL in the last row.
const ROWS = [
  `(1, '123456789012345678901234567890.123456789012345678901234567890', 12345678.1200, -32768, -2147483648, 9223372036854775807, 'NaN', 'Infinity',
    'plain', 'varchar', 'ab', '\\x00ff10', true,
    '2024-02-29', '23:59:59.999999', '13:45:00+02', '2024-02-29 12:34:56.789', '2024-02-29 12:34:56.789+02', '1 year 2 mons 3 days 04:05:06.5',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{ "a" : [1, 2.50] }', '{"b": 2, "a": 1.0}',
    '{1,NULL,-3}', '{"a b","c,d","e\\"f","NULL",NULL,""}', '{{1,2},{3,4}}', '{happy,sad}', '{1.50,NaN}',
    'happy', '192.168.0.1/24', '10.0.0.0/8', 1234.56, 7)`,
  `(2, 'NaN', -0.0001, 32767, 2147483647, -9223372036854775808, '-Infinity', 'NaN',
    'ünïcödé ✓ ''quoted'' \\ back', '', '     ', '\\x', false,
    '0001-01-01', '00:00:00', '00:00:00-05:30', '1999-12-31 23:59:59', '1970-01-01 00:00:00+00', '-1 days -00:00:01',
    '00000000-0000-0000-0000-000000000000', '[]', '[]',
    '{}', '{}', '{}', '{}', '{}',
    'sad', '::1', '2001:db8::/32', -0.01, 1)`,
  `(3, '-0.000000000000000000000000000001', 0, 0, 0, 0, '1.1', '0.1',
    'x', 'y', 'z', '\\xdeadbeef', true,
    'infinity', '12:00:00', '12:00:00+00', '-infinity', 'infinity', '0',
    'ffffffff-ffff-ffff-ffff-ffffffffffff', 'null', '{"nested": {"x": [true, null]}}',
    '{2147483647}', '{"\\\\"}', '{{NULL}}', '{happy}', '{-0.5}',
    'happy', '0.0.0.0', '0.0.0.0/0', 0, 2147483647)`,
  `(4, ${Array.from({ length: 31 }, () => 'NULL').join(', ')})`,
];

// One private server for the file: each test has its own tables, publication and slot (pgoutput
// sends a slot only the tables of its publication).
let server: PostgresServer;
before(async () => {
  server = await startPostgres();
});
after(() => server?.stop());

test('every type arrives alike through a snapshot SELECT and through the change stream (insert and update), and exactly as specified', async () => {
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  const sql = await PgSqlClient.connect(server.connectionOptions());
  try {
    await admin.query(`CREATE TYPE mood AS ENUM ('happy', 'sad')`);
    await admin.query(`CREATE DOMAIN posint AS int4 CHECK (VALUE > 0)`);
    await admin.query(`CREATE TABLE all_types (${COLUMNS})`);
    await admin.query(`ALTER TABLE all_types REPLICA IDENTITY FULL`);
    await admin.query(`CREATE PUBLICATION p FOR TABLE all_types`);
    const slot = await admin.query(`SELECT lsn::text FROM pg_create_logical_replication_slot('s', 'pgoutput')`);
    // The client's own session must not matter: the codec sets its own.
    await admin.query(`SET TimeZone = 'America/New_York'; SET DateStyle = 'German'; SET IntervalStyle = 'sql_standard'`);
    await admin.query(`INSERT INTO all_types VALUES ${ROWS.join(',\n')}`);
    const snapshot = sortById(await selectRows(sql, new PgTypeCatalog(), 'public', 'all_types'));
    await admin.query(`UPDATE all_types SET id = id + 100`);
    const updated = sortById(await selectRows(sql, new PgTypeCatalog(), 'public', 'all_types'));

    const reader = await PgLogReader.open({ ...server.connectionOptions(), slot: 's', publication: 'p', start: parseLsn(slot.rows[0].lsn), warn: () => {} });
    const records: PgChangeRecord[] = [];
    try {
      while (records.length < ROWS.length * 2) {
        const e = await reader.read();
        if (e.kind === 'change') records.push(e.record);
      }
    } finally {
      await reader.close();
    }
    const inserted = sortById(records.filter((r) => r.op === 'c').map((r) => r.after!));
    const updates = records.filter((r) => r.op === 'u');
    assert.equal(snapshot.length, ROWS.length);
    assert.deepEqual(inserted, snapshot, 'inserts in the stream equal the snapshot rows');
    assert.deepEqual(sortById(updates.map((r) => r.before!)), snapshot, 'before images equal the snapshot rows');
    assert.deepEqual(sortById(updates.map((r) => r.after!)), updated, 'after images equal the rows read after the update');

    assert.deepEqual(snapshot[0], {
      id: 1,
      num: '123456789012345678901234567890.123456789012345678901234567890',
      num_s: '12345678.1200',
      i2: -32768,
      i4: -2147483648,
      i8: 9223372036854775807n,
      f4: NaN,
      f8: Infinity,
      txt: 'plain',
      vc: 'varchar',
      ch: 'ab   ',
      by: Buffer.from([0x00, 0xff, 0x10]),
      b: true,
      d: '2024-02-29',
      tm: '23:59:59.999999',
      ttz: '13:45:00+02',
      ts: '2024-02-29 12:34:56.789',
      tstz: '2024-02-29T10:34:56.789Z',
      iv: 'P1Y2M3DT4H5M6.5S',
      u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      j: '{ "a" : [1, 2.50] }',
      jb: '{"a": 1.0, "b": 2}',
      ai: [1, null, -3],
      at: ['a b', 'c,d', 'e"f', 'NULL', null, ''],
      a2: [
        [1n, 2n],
        [3n, 4n],
      ],
      ae: ['happy', 'sad'],
      an: ['1.50', 'NaN'],
      e: 'happy',
      ip: '192.168.0.1/24',
      net: '10.0.0.0/8',
      m: '$1,234.56',
      dm: 7,
    });
    const r2 = snapshot[1]!;
    assert.deepEqual([r2.num, r2.f4, r2.f8, r2.i8, r2.by, r2.b, r2.tstz, r2.iv, r2.ai, r2.m, r2.ip], ['NaN', -Infinity, NaN, -9223372036854775808n, Buffer.alloc(0), false, '1970-01-01T00:00:00Z', 'P-1DT-1S', [], '-$0.01', '::1']);
    assert.equal(r2.txt, "ünïcödé ✓ 'quoted' \\ back");
    const r3 = snapshot[2]!;
    assert.deepEqual([r3.f4, r3.f8, r3.d, r3.ts, r3.tstz, r3.at, r3.a2, r3.j], [1.1, 0.1, 'infinity', '-infinity', 'infinity', ['\\'], [[null]], 'null']);
    assert.ok(Object.values(snapshot[3]!).slice(1).every((v) => v === null));
  } finally {
    await sql.close();
    await admin.end();
  }
});

test('an update leaving a TOASTed text column unchanged lists it in unchangedColumns and leaves it out of after, never null', async () => {
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  try {
    await admin.query(`CREATE TABLE docs_toast (id int PRIMARY KEY, title text, body text)`);
    // EXTERNAL: stored out of line uncompressed, so a few KB are surely TOASTed.
    await admin.query(`ALTER TABLE docs_toast ALTER COLUMN body SET STORAGE EXTERNAL`);
    await admin.query(`CREATE PUBLICATION p_toast FOR TABLE docs_toast`);
    const slot = await admin.query(`SELECT lsn::text FROM pg_create_logical_replication_slot('s_toast', 'pgoutput')`);
    const body = 'lorem ipsum '.repeat(400); // 4.8 KB
    await admin.query(`INSERT INTO docs_toast VALUES (1, 'first', $1)`, [body]);
    await admin.query(`UPDATE docs_toast SET title = 'second' WHERE id = 1`);
    await admin.query(`UPDATE docs_toast SET body = body || '!' WHERE id = 1`);
    const warnings: string[] = [];
    const reader = await PgLogReader.open({ ...server.connectionOptions(), slot: 's_toast', publication: 'p_toast', start: parseLsn(slot.rows[0].lsn), warn: (m) => warnings.push(m) });
    const records: PgChangeRecord[] = [];
    try {
      while (records.length < 3) {
        const e = await reader.read();
        if (e.kind === 'change') records.push(e.record);
      }
    } finally {
      await reader.close();
    }
    assert.deepEqual(records[0]!.after, { id: 1, title: 'first', body });
    assert.equal(records[0]!.unchangedColumns, undefined);
    assert.deepEqual(records[1]!.after, { id: 1, title: 'second' });
    assert.equal('body' in records[1]!.after!, false);
    assert.deepEqual(records[1]!.unchangedColumns, ['body']);
    assert.deepEqual(records[2]!.after, { id: 1, title: 'second', body: `${body}!` });
    assert.equal(records[2]!.unchangedColumns, undefined);
    assert.equal(warnings.length, 1, 'one REPLICA IDENTITY warning for two updates');
  } finally {
    await admin.end();
  }
});

test('with REPLICA IDENTITY FULL, an update leaving a TOASTed column unchanged has it in after, taken from the full before image', async () => {
  const admin = new pg.Client(server.connectionOptions());
  await admin.connect();
  try {
    await admin.query(`CREATE TABLE docs_full (id int PRIMARY KEY, title text, body text)`);
    await admin.query(`ALTER TABLE docs_full ALTER COLUMN body SET STORAGE EXTERNAL`);
    await admin.query(`ALTER TABLE docs_full REPLICA IDENTITY FULL`);
    await admin.query(`CREATE PUBLICATION p_full FOR TABLE docs_full`);
    const slot = await admin.query(`SELECT lsn::text FROM pg_create_logical_replication_slot('s_full', 'pgoutput')`);
    const body = 'lorem ipsum '.repeat(400);
    await admin.query(`INSERT INTO docs_full VALUES (1, 'first', $1)`, [body]);
    await admin.query(`UPDATE docs_full SET title = 'second' WHERE id = 1`);
    const warnings: string[] = [];
    const reader = await PgLogReader.open({ ...server.connectionOptions(), slot: 's_full', publication: 'p_full', start: parseLsn(slot.rows[0].lsn), warn: (m) => warnings.push(m) });
    const records: PgChangeRecord[] = [];
    try {
      while (records.length < 2) {
        const e = await reader.read();
        if (e.kind === 'change') records.push(e.record);
      }
    } finally {
      await reader.close();
    }
    assert.deepEqual(records[1]!.before, { id: 1, title: 'first', body });
    assert.deepEqual(records[1]!.after, { id: 1, title: 'second', body });
    assert.equal(records[1]!.unchangedColumns, undefined);
    assert.deepEqual(warnings, []);
  } finally {
    await admin.end();
  }
});

function sortById(rows: RowImage[]): RowImage[] {
  return [...rows].map((r) => ({ ...r, id: Number(r.id) % 100 })).sort((a, b) => Number(a.id) - Number(b.id));
}
