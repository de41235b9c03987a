import { copyRows } from './pg-chunk-copy.ts';
import type { RowImage } from './pg-change-record.ts';
import { quoteTable } from './pg-quote.ts';
import type { PgSqlClient } from './pg-sql-client.ts';
import type { PgTypeCatalog } from './pg-type-catalog.ts';

/** A table's columns in their order (`SELECT *`'s), with their type OIDs. */
export interface TableColumn {
  readonly name: string;
  readonly oid: number;
}

/** The columns of a table, their types loaded into the catalog so that its rows can be parsed. */
export async function loadTableTypes(sql: PgSqlClient, catalog: PgTypeCatalog, schema: string, table: string): Promise<TableColumn[]> {
  const rows = await sql.query<{ name: string; t: string }>(
    `SELECT attname AS name, atttypid::int8::text AS t FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
    [quoteTable(schema, table)],
  );
  const columns = rows.map((r) => ({ name: r.name, oid: Number(r.t) }));
  await catalog.load(sql, columns.map((c) => c.oid));
  return columns;
}

/**
 * Rows of a table in the text format, parsed as the stream parses pgoutput's text tuples;
 * `where` (SQL with its values inlined as literals: COPY takes no parameters) restricts them, e.g.
 * to a chunk's key range. Read by COPY (pg-chunk-copy.ts), which the server sends and this process
 * parses several times faster than a SELECT's result rows through pg.
 */
export async function selectRows(sql: PgSqlClient, catalog: PgTypeCatalog, schema: string, table: string, where = ''): Promise<RowImage[]> {
  const { rows } = await copyRows(sql, catalog, schema, table, where);
  return Array.from({ length: rows.length }, (_, i) => rows.at(i)!);
}
