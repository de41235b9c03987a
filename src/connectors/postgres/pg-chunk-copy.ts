import type { TextRows } from './copy-text-rows.ts';
import { CopyRowList } from './copy-row-list.ts';
import { quoteIdent, quoteLiteral, quoteTable } from './pg-quote.ts';
import type { PgSqlClient } from './pg-sql-client.ts';
import type { TableColumn } from './pg-table-rows.ts';
import type { PgTypeCatalog } from './pg-type-catalog.ts';

/** A table's columns in their order (`SELECT *`'s) with their types, and its primary key. */
export interface TableShape {
  readonly columns: readonly TableColumn[];
  /** The primary key's columns in the key's order; empty for a table without one. */
  readonly key: readonly string[];
}

/** What a read of rows by copyRows gives. */
export interface CopiedRows {
  /** Decoded as they are asked for. */
  readonly rows: CopyRowList;
  /** The table's shape the rows are decoded with: as the COPY saw the table. */
  readonly shape: TableShape;
  /** `pg_current_wal_insert_lsn()` read after the COPY, in the same transaction. */
  readonly insertLsn: string;
}

// A column dropped or renamed since the shape was loaded: the COPY names a column no longer there.
const UNDEFINED_COLUMN = '42703';
const SHAPE_RETRIES = 5;

/** The catalog query of a table's shape: a row per column, its type OID and its place in the primary key (NULL: none; indkey's subscripts start at 0). */
function shapeSql(schema: string, table: string): string {
  return `SELECT a.attname AS name, a.atttypid::int8::text AS oid, array_position(i.indkey::int2[], a.attnum)::text AS key
    FROM pg_attribute a LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
    WHERE a.attrelid = ${quoteLiteral(quoteTable(schema, table))}::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`;
}

function shapeOf(rows: TextRows): TableShape {
  const columns = rows.map((r) => ({ name: r[0]!, oid: Number(r[1]) }));
  const key = rows
    .filter((r) => r[2] !== null)
    .sort((a, b) => Number(a[2]) - Number(b[2]))
    .map((r) => r[0]!);
  return { columns, key };
}

function sameShape(a: TableShape, b: TableShape): boolean {
  return (
    a.columns.length === b.columns.length &&
    a.columns.every((c, i) => c.name === b.columns[i]!.name && c.oid === b.columns[i]!.oid) &&
    a.key.length === b.key.length &&
    a.key.every((k, i) => k === b.key[i])
  );
}

/** A table's shape now, its column types loaded into the catalog so that its rows can be parsed. */
export async function loadTableShape(sql: PgSqlClient, catalog: PgTypeCatalog, schema: string, table: string): Promise<TableShape> {
  const rows = await sql.query<{ name: string; oid: string; key: string | null }>(shapeSql(schema, table));
  const shape = shapeOf(rows.map((r) => [r.name, r.oid, r.key]));
  await catalog.load(sql, shape.columns.map((c) => c.oid));
  return shape;
}

/**
 * Rows of a table by `COPY (SELECT cols FROM t [WHERE …]) TO STDOUT`, to be decoded with `shape`,
 * and in the same round trip (one simple query of three statements: one transaction)
 * the table's shape after the COPY and the WAL insert position. The COPY's lock on the table is
 * held to the transaction's end, so no ALTER TABLE commits in between: the shape read after it is
 * the one the COPY saw. When that differs from the shape the rows are decoded with (a column
 * added, dropped, renamed or retyped, or the key changed since the shape was loaded), the rows
 * are read again with the new one. `where` is SQL with its values inlined as literals (COPY
 * takes no parameters).
 */
export async function copyRows(sql: PgSqlClient, catalog: PgTypeCatalog, schema: string, table: string, where: string, shape?: TableShape): Promise<CopiedRows> {
  let current = shape ?? (await loadTableShape(sql, catalog, schema, table));
  for (let attempt = 1; ; attempt++) {
    const list = current.columns.map((c) => quoteIdent(c.name)).join(', ');
    const copy = `COPY (SELECT ${list} FROM ${quoteTable(schema, table)}${where ? ` WHERE ${where}` : ''}) TO STDOUT`;
    const rows = new CopyRowList(current.columns.map((c) => ({ name: c.name, parse: catalog.parser(c.oid) })));
    let results: TextRows[];
    try {
      results = await sql.copyOut(`${copy}; ${shapeSql(schema, table)}; SELECT pg_current_wal_insert_lsn()::text`, (text, gap) => rows.add(text, gap));
    } catch (e) {
      if ((e as { code?: string }).code !== UNDEFINED_COLUMN || attempt >= SHAPE_RETRIES) throw e;
      current = await loadTableShape(sql, catalog, schema, table);
      continue;
    }
    const seen = shapeOf(results[0]!);
    if (sameShape(seen, current)) return { rows, shape: current, insertLsn: results[1]![0]![0]! };
    await catalog.load(sql, seen.columns.map((c) => c.oid));
    current = seen;
  }
}
