import { pgChunkKeyKind } from './pg-chunk-key.ts';
import { quoteIdent, quoteTable } from './pg-quote.ts';
import type { PgSqlClient } from './pg-sql-client.ts';
import type { CdcTable } from '../cdc/cdc-dialect.ts';
import { pgTableMatches } from './postgres-cdc-options.ts';

/** The source's table patterns match no table, or a matched table cannot be cut into chunks. */
export class PgTableSelectionError extends Error {
  readonly unrecoverable = true;
  readonly patterns: string;
  constructor(database: string, patterns: ReadonlyArray<string | RegExp>, why: string) {
    const list = patterns.map(String).join(', ');
    super(`database ${database}: tables [${list}]: ${why}`);
    this.name = 'PgTableSelectionError';
    this.patterns = list;
  }
}

/**
 * Captured tables: plain and partitioned tables (partitions are read through their root) whose
 * 'schema.table' matches, in a stable order, each with its chunk key.
 */
export async function listCapturedTables(
  sql: PgSqlClient,
  database: string,
  patterns: ReadonlyArray<string | RegExp>,
  chunkKeyColumn: Readonly<Record<string, string>>,
  noneIsAnError = true,
): Promise<CdcTable[]> {
  const all = await sql.query<{ schema: string; table: string }>(
    `SELECT n.nspname AS schema, c.relname AS table FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
     ORDER BY 1, 2`,
  );
  const matched = all.filter((t) => pgTableMatches(patterns, t.schema, t.table));
  if (matched.length === 0 && noneIsAnError) throw new PgTableSelectionError(database, patterns, `no table matches (tables there: ${all.map((t) => `${t.schema}.${t.table}`).join(', ') || 'none'})`);
  const out: CdcTable[] = [];
  for (const t of matched) out.push(await planKey(sql, database, patterns, t.schema, t.table, chunkKeyColumn));
  return out;
}

async function planKey(
  sql: PgSqlClient,
  database: string,
  patterns: ReadonlyArray<string | RegExp>,
  schema: string,
  table: string,
  chunkKeyColumn: Readonly<Record<string, string>>,
): Promise<CdcTable> {
  const name = `${schema}.${table}`;
  const keyColumn = chunkKeyColumn[name] ?? chunkKeyColumn[table] ?? (await primaryKey(sql, schema, table))[0];
  if (!keyColumn) {
    throw new PgTableSelectionError(database, patterns, `table ${name} has no primary key; give a chunk key column for it in the chunkKeyColumn option (e.g. { '${name}': 'id' })`);
  }
  const [col] = await sql.query<{ typname: string; collation: string | null }>(
    `SELECT t.typname,
            CASE WHEN a.attcollation = 0 THEN NULL
                 WHEN co.collname = 'default' THEN (SELECT datcollate FROM pg_database WHERE datname = current_database())
                 ELSE co.collname END AS collation
     FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid LEFT JOIN pg_collation co ON co.oid = a.attcollation
     WHERE a.attrelid = $1::regclass AND a.attname = $2 AND NOT a.attisdropped`,
    [quoteTable(schema, table), keyColumn],
  );
  if (!col) throw new PgTableSelectionError(database, patterns, `table ${name}: chunk key column '${keyColumn}' does not exist`);
  const collation = col.collation && /^(C|POSIX|C\.UTF-?8)$/i.test(col.collation) ? 'C' : col.collation;
  return { db: schema, table, keyColumn, keyKind: pgChunkKeyKind(name, keyColumn, col.typname, collation) };
}

/** The primary key's columns in key order; empty when there is none. */
export async function primaryKey(sql: PgSqlClient, schema: string, table: string): Promise<string[]> {
  const rows = await sql.query<{ attname: string }>(
    `SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey::int2[])
     WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)`,
    [quoteTable(schema, table)],
  );
  return rows.map((r) => r.attname);
}

/** An estimate of a table's rows (a partitioned table's are its partitions'). */
export async function approxRows(sql: PgSqlClient, schema: string, table: string): Promise<number> {
  const [r] = await sql.query<{ n: string }>(
    `SELECT (GREATEST(c.reltuples, 0) + COALESCE((SELECT SUM(GREATEST(p.reltuples, 0)) FROM pg_inherits h JOIN pg_class p ON p.oid = h.inhrelid WHERE h.inhparent = c.oid), 0))::int8::text AS n
     FROM pg_class c WHERE c.oid = $1::regclass`,
    [quoteTable(schema, table)],
  );
  return Number(r?.n ?? 0);
}

export function keyExpr(t: CdcTable): string {
  return quoteIdent(t.keyColumn);
}
