import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { ExactDecimal } from '../../../src/pipeline/expression/index.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';
import { compile, META } from './expression-fixture.ts';

/*
 * The same expressions evaluated by weir and by the source databases, value for value, on rows
 * with NULLs and decimals. Only where the databases share Flink CDC's semantics: comparisons are
 * checked as filters (`IS TRUE`), since Flink CDC's are FALSE where SQL's are NULL; NOT BETWEEN and
 * NOT IN of a NULL, `||` with NULL in PostgreSQL's CONCAT, and non-terminating decimal divisions
 * differ and are in expression-values.test.ts's table instead.
 */
const ROWS: Record<string, unknown>[] = [
  { k: 1, id: 7, big: 9007199254740993n, name: ' Abc_x ', price: '10.25', qty: '3.0000', flag: true, d: '2024-02-29', ts: '2024-02-29 13:45:06.500', ts2: '2025-03-01 00:00:00.000' },
  { k: 2, id: -3, big: -5n, name: 'xyz', price: '-0.05', qty: '123.4567', flag: false, d: '1999-12-31', ts: '1999-12-31 23:59:59.999', ts2: '2000-01-01 00:00:00.000' },
  { k: 3, id: null, big: null, name: null, price: null, qty: null, flag: null, d: null, ts: null, ts2: null },
  { k: 4, id: 0, big: 0n, name: '', price: '0.00', qty: '0.0001', flag: null, d: '2000-02-29', ts: '2000-02-29 00:00:00.000', ts2: '2000-02-28 23:00:00.000' },
  { k: 5, id: 12, big: 12n, name: 'b%_\\z', price: '99999999.99', qty: '-99999999.9999', flag: true, d: '2024-01-01', ts: '2024-01-31 10:00:00.000', ts2: '2024-02-29 09:59:59.999' },
];

type Kind = 'value' | 'decimal' | 'filter' | 'bool';

/** Expressions valid in both databases' SQL with Flink CDC's meaning. */
const COMMON: [string, Kind][] = [
  ['id + 1', 'value'],
  ['id * 3', 'value'],
  ['id - 10', 'value'],
  ['-id', 'value'],
  ['price + 1', 'decimal'],
  ['price + qty', 'decimal'],
  ['price - 0.255', 'decimal'],
  ['price * qty', 'decimal'],
  ['price * 2', 'decimal'],
  ['price * price * price', 'decimal'],
  ['-price', 'decimal'],
  ['price % 3', 'decimal'],
  ['price / 4', 'decimal'],
  ['ABS(-price)', 'decimal'],
  ['ABS(id)', 'value'],
  ['CEIL(price)', 'decimal'],
  ['FLOOR(price)', 'decimal'],
  ['FLOOR(-qty)', 'decimal'],
  ['ROUND(price, 1)', 'decimal'],
  ['ROUND(-price, 1)', 'decimal'],
  ['ROUND(qty, 2)', 'decimal'],
  ['ROUND(price)', 'decimal'],
  ['CAST(price AS DECIMAL(12,1))', 'decimal'],
  ['CAST(qty AS DECIMAL(14,3))', 'decimal'],
  ['COALESCE(price, 0)', 'decimal'],
  ['COALESCE(price, qty)', 'decimal'],
  ['CASE WHEN id > 5 THEN price ELSE qty END', 'decimal'],
  ['id = 7', 'filter'],
  ['id <> 7', 'filter'],
  ['id < 8', 'filter'],
  ['id >= 0', 'filter'],
  ['price > 10.2', 'filter'],
  ['price = 10.250', 'filter'],
  ['price < qty', 'filter'],
  ["name = 'xyz'", 'filter'],
  ['id BETWEEN 1 AND 7', 'filter'],
  ['price BETWEEN -1 AND 10.25', 'filter'],
  ['id IN (1, 7, 12)', 'filter'],
  ["name IN ('xyz', '')", 'filter'],
  ["name LIKE '%b%'", 'filter'],
  ["name LIKE '_bc%'", 'filter'],
  ["name LIKE '%\\_%'", 'filter'],
  ["name LIKE 'b!%%' ESCAPE '!'", 'filter'],
  ["name NOT LIKE '%y%'", 'filter'],
  ["d = '2024-02-29'", 'filter'],
  ["ts > '2024-01-01 00:00:00'", 'filter'],
  ['ts < ts2', 'filter'],
  ['id IS NULL', 'bool'],
  ['price IS NOT NULL', 'bool'],
  ['flag AND (id IS NOT NULL)', 'bool'],
  ['flag OR (id IS NULL)', 'bool'],
  ['NOT flag', 'bool'],
  ['(id > 5 OR flag) AND price IS NOT NULL', 'filter'],
  ["CASE WHEN id > 5 THEN 'big' WHEN id > 0 THEN 'mid' ELSE 'small' END", 'value'],
  ["CASE id WHEN 7 THEN 'seven' WHEN 0 THEN 'zero' END", 'value'],
  ["COALESCE(name, 'none')", 'value'],
  ['NULLIF(id, 7)', 'value'],
  ["name || '!'", 'value'],
  ["name || '-' || name", 'value'],
  ['CHAR_LENGTH(name)', 'value'],
  ['UPPER(name)', 'value'],
  ['LOWER(name)', 'value'],
  ['TRIM(name)', 'value'],
  ["TRIM(BOTH 'x' FROM name)", 'value'],
  ["TRIM(LEADING ' ' FROM name)", 'value'],
  ['SUBSTR(name, 2, 3)', 'value'],
  ['SUBSTRING(name, 2)', 'value'],
  ["REPLACE(name, 'b', 'BB')", 'value'],
  ["LPAD(name, 10, '*')", 'value'],
  ["RPAD(name, 3, '*')", 'value'],
  ['LEFT(name, 2)', 'value'],
  ['RIGHT(name, 2)', 'value'],
  ['REPEAT(name, 2)', 'value'],
  ['EXTRACT(YEAR FROM ts)', 'value'],
  ['EXTRACT(MONTH FROM d)', 'value'],
  ['EXTRACT(HOUR FROM ts)', 'value'],
];

/** MariaDB has these functions with Flink CDC's meaning; PostgreSQL does not (or differs). */
const MARIADB_ONLY: [string, Kind][] = [
  ["IF(id > 5, 'y', 'n')", 'value'],
  ['IF(flag, price, qty)', 'decimal'],
  ["CONCAT(name, '-', id)", 'value'],
  ["REGEXP_REPLACE(name, '[_%]+', '#')", 'value'],
  ["LOCATE('b', name)", 'value'],
  ["INSTR(name, 'b')", 'value'],
  ['TIMESTAMPDIFF(DAY, ts, ts2)', 'value'],
  ['TIMESTAMPDIFF(MONTH, ts, ts2)', 'value'],
  ['TIMESTAMPDIFF(YEAR, d, ts2)', 'value'],
  ['TIMESTAMPDIFF(HOUR, ts2, ts)', 'value'],
  ['TIMESTAMPDIFF(SECOND, ts, ts2)', 'value'],
  ['price / 8', 'decimal'],
  ['id % 5', 'value'],
];

function normalize(v: unknown, kind: Kind): unknown {
  // As a filter, NULL and FALSE both drop the row.
  if (kind === 'filter') return v === true || v === 1 || v === '1' || v === 1n;
  if (v === null || v === undefined) return null;
  if (kind === 'decimal') return ExactDecimal.parse(String(v))!.withScale(12).toString();
  if (kind === 'bool') return v === true || v === 1 || v === '1' || v === 1n;
  if (Buffer.isBuffer(v)) return v.toString('utf8');
  return String(v);
}

function weirValues(expression: string, kind: Kind): unknown[] {
  const t = compile(`${expression} AS v`, undefined, 'UTC');
  return ROWS.map((r) => normalize(t.apply(r, META)!.v, kind));
}

function selectList(expression: string, kind: Kind): string {
  return kind === 'filter' ? `(${expression}) IS TRUE` : expression;
}

describe('pipeline expressions: the same values as the source databases', { timeout: 180_000 }, () => {
  let maria: MariaDbServer;
  let postgres: PostgresServer;
  let my: mysql.Connection;
  let pgc: pg.Client;
  const DDL = 'k int primary key, id int, big bigint, name varchar(20), price decimal(10,2), qty decimal(12,4), flag boolean, d date, ts timestamp(3), ts2 timestamp(3)';

  before(async () => {
    [maria, postgres] = await Promise.all([startMariaDb(), startPostgres()]);
    my = await mysql.createConnection({ ...maria.connectionOptions(), supportBigNumbers: true, bigNumberStrings: true, dateStrings: true });
    await my.query("SET SESSION sql_mode = CONCAT(@@sql_mode, ',PIPES_AS_CONCAT'), time_zone = '+00:00'");
    await my.query('CREATE DATABASE x');
    await my.query(`CREATE TABLE x.t (${DDL.replace(/timestamp\(3\)/g, 'datetime(3)')})`);
    pgc = new pg.Client(postgres.connectionOptions());
    await pgc.connect();
    await pgc.query(`CREATE TABLE t (${DDL})`);
    for (const r of ROWS) {
      const values = [r.k, r.id, r.big === null ? null : String(r.big), r.name, r.price, r.qty, r.flag, r.d, r.ts, r.ts2];
      await my.query('INSERT INTO x.t VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', values);
      await pgc.query('INSERT INTO t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', values);
    }
  });

  after(async () => {
    await my?.end();
    await pgc?.end();
    await Promise.all([maria?.stop(), postgres?.stop()]);
  });

  it('every row of the table is checked', async () => {
    const [rows] = await my.query('SELECT count(*) AS n FROM x.t');
    assert.equal(Number((rows as { n: number }[])[0]!.n), ROWS.length);
    assert.equal(Number((await pgc.query('SELECT count(*) AS n FROM t')).rows[0].n), ROWS.length);
  });

  for (const [expression, kind] of [...COMMON, ...MARIADB_ONLY]) {
    it(`MariaDB: ${expression}`, async () => {
      const [rows] = await my.query(`SELECT ${selectList(expression, kind)} AS v FROM x.t ORDER BY k`);
      assert.deepEqual(weirValues(expression, kind), (rows as { v: unknown }[]).map((r) => normalize(r.v, kind)));
    });
  }

  for (const [expression, kind] of COMMON) {
    it(`PostgreSQL: ${expression}`, async () => {
      const { rows } = await pgc.query(`SELECT ${selectList(expression, kind)} AS v FROM t ORDER BY k`);
      assert.deepEqual(weirValues(expression, kind), rows.map((r: { v: unknown }) => normalize(r.v, kind)));
    });
  }
});
