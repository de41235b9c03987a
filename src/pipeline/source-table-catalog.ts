import mysql from 'mysql2/promise';
import { mysql2Runner, type QueryRunner } from '../connectors/mysql/query-runner.ts';
import { connectPg } from '../connectors/postgres/pg-connection.ts';
import type { SqlRunner } from '../connectors/postgres/sql-runner.ts';
import type { SourceDefinition } from './pipeline-definition.ts';

/** A source column as the pipeline transforms it: the dialect's type text (as the CDC records give it) and its nullability. */
export interface SourceColumn {
  readonly name: string;
  readonly type: string;
  readonly nullable: boolean;
}

/** A captured source table's schema: what a table's `create.table` is made from. */
export interface SourceTableSchema {
  /** `db.table` (MySQL, MariaDB) or `schema.table` (PostgreSQL): the id routes and transforms match. */
  readonly id: string;
  readonly columns: readonly SourceColumn[];
  readonly primaryKey: readonly string[];
}

/** The source database's catalog as the pipeline reads it at open: the captured tables' schemas. */
export interface SourceTableCatalog {
  readTables(): Promise<SourceTableSchema[]>;
  close(): Promise<void>;
}

/** The catalog of a pipeline's source, over a connection of its own (opened on first use). */
export function openSourceCatalog(source: SourceDefinition): SourceTableCatalog {
  const captured = (id: string) => source.tables.matches(id) && !(source.excludedTables?.matches(id) ?? false);
  return source.type === 'postgres' ? postgresCatalog(source, captured) : mySqlCatalog(source, captured);
}

function mySqlCatalog(source: SourceDefinition, captured: (id: string) => boolean): SourceTableCatalog {
  const o = source.options;
  let conn: Promise<mysql.Connection> | undefined;
  return {
    async readTables() {
      conn ??= mysql.createConnection({ host: String(o['hostname']), port: Number(o['port'] ?? 3306), user: String(o['username']), password: String(o['password'] ?? '') });
      return readMySqlTables(mysql2Runner(await conn), captured);
    },
    async close() {
      const c = conn;
      conn = undefined;
      if (c) await (await c.catch(() => undefined))?.end().catch(() => {});
    },
  };
}

/** Every captured base table's columns (COLUMN_TYPE, as the binlog's schema records name types) and primary key. */
export async function readMySqlTables(sql: QueryRunner, captured: (id: string) => boolean): Promise<SourceTableSchema[]> {
  const cols = (await sql.query(
    `SELECT c.TABLE_SCHEMA AS db, c.TABLE_NAME AS t, c.COLUMN_NAME AS name, c.COLUMN_TYPE AS type, c.IS_NULLABLE AS nullable
     FROM information_schema.COLUMNS c JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
     WHERE t.TABLE_TYPE = 'BASE TABLE' AND c.TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
     ORDER BY c.TABLE_SCHEMA, c.TABLE_NAME, c.ORDINAL_POSITION`,
  )) as Array<{ db: string; t: string; name: string; type: string | Buffer; nullable: string }>;
  const keys = (await sql.query(
    `SELECT TABLE_SCHEMA AS db, TABLE_NAME AS t, COLUMN_NAME AS name FROM information_schema.KEY_COLUMN_USAGE
     WHERE CONSTRAINT_NAME = 'PRIMARY' ORDER BY TABLE_SCHEMA, TABLE_NAME, ORDINAL_POSITION`,
  )) as Array<{ db: string; t: string; name: string }>;
  return group(
    cols.map((c) => ({ id: `${c.db}.${c.t}`, column: { name: c.name, type: String(c.type), nullable: c.nullable === 'YES' } })),
    keys.map((k) => ({ id: `${k.db}.${k.t}`, name: k.name })),
    captured,
  );
}

function postgresCatalog(source: SourceDefinition, captured: (id: string) => boolean): SourceTableCatalog {
  const o = source.options;
  let conn: ReturnType<typeof connectPg> | undefined;
  return {
    async readTables() {
      conn ??= connectPg({ host: String(o['hostname']), port: Number(o['port'] ?? 5432), user: String(o['username']), password: String(o['password'] ?? ''), database: String(o['database']) }, 'weir pipeline catalog');
      return readPostgresTables((await conn).sql, captured);
    },
    async close() {
      const c = conn;
      conn = undefined;
      if (c) await (await c.catch(() => undefined))?.end();
    },
  };
}

/** Every captured plain or partitioned (root) table's columns (format_type's text) and primary key. */
export async function readPostgresTables(sql: SqlRunner, captured: (id: string) => boolean): Promise<SourceTableSchema[]> {
  const cols = await sql<{ s: string; t: string; name: string; type: string; nullable: boolean }>(
    `SELECT n.nspname AS s, c.relname AS t, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
     FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND a.attnum > 0 AND NOT a.attisdropped
       AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
     ORDER BY n.nspname, c.relname, a.attnum`,
  );
  const keys = await sql<{ s: string; t: string; name: string }>(
    `SELECT n.nspname AS s, c.relname AS t, a.attname AS name
     FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey::int2[])
     WHERE i.indisprimary ORDER BY n.nspname, c.relname, array_position(i.indkey::int2[], a.attnum)`,
  );
  return group(
    cols.map((c) => ({ id: `${c.s}.${c.t}`, column: { name: c.name, type: c.type, nullable: c.nullable } })),
    keys.map((k) => ({ id: `${k.s}.${k.t}`, name: k.name })),
    captured,
  );
}

function group(cols: Array<{ id: string; column: SourceColumn }>, keys: Array<{ id: string; name: string }>, captured: (id: string) => boolean): SourceTableSchema[] {
  const tables = new Map<string, { columns: SourceColumn[]; primaryKey: string[] }>();
  for (const { id, column } of cols) {
    if (!captured(id)) continue;
    let t = tables.get(id);
    if (!t) tables.set(id, (t = { columns: [], primaryKey: [] }));
    t.columns.push(column);
  }
  for (const k of keys) tables.get(k.id)?.primaryKey.push(k.name);
  return [...tables].map(([id, t]) => ({ id, ...t }));
}
