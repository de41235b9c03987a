import type { RowImage } from './pg-change-record.ts';
import { quoteTable } from './pg-quote.ts';
import type { PgSqlClient } from './pg-sql-client.ts';
import type { PgTypeCatalog } from './pg-type-catalog.ts';

/** The type OIDs of a table's columns, loaded into the catalog so that its rows can be parsed. */
export async function loadTableTypes(sql: PgSqlClient, catalog: PgTypeCatalog, schema: string, table: string): Promise<void> {
  const rows = await sql.query<{ t: string }>(
    `SELECT atttypid::int8::text AS t FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
    [quoteTable(schema, table)],
  );
  await catalog.load(sql, rows.map((r) => Number(r.t)));
}

/**
 * Rows of a table in the text format, parsed as the stream parses pgoutput's text tuples
 * (`where` and `params` restrict them, e.g. to a chunk's key range).
 */
export async function selectRows(sql: PgSqlClient, catalog: PgTypeCatalog, schema: string, table: string, where = '', params: readonly unknown[] = []): Promise<RowImage[]> {
  await loadTableTypes(sql, catalog, schema, table);
  return sql.query<RowImage>(`SELECT * FROM ${quoteTable(schema, table)}${where ? ` WHERE ${where}` : ''}`, params, (oid) => catalog.parser(oid));
}
