import { ColumnMismatchError } from '../database-sink/column-mismatch-error.ts';
import { SinkError } from '../../api/sink-error.ts';
import type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
import type { PostgresSinkOptions } from './postgres-sink-options.ts';
import type { SqlRunner } from './sql-runner.ts';
import { parseTableName } from './pg-quote.ts';

/** One mapped column: its name, catalog type (udt_name, for arrays: `int4[]`) and the record field it comes from. */
export interface MappedColumn {
  readonly column: string;
  readonly field: string;
  readonly type: string;
}

/** The target table as the sink writes it: quoted name, mapped columns, key. */
export interface PostgresTable {
  /** schema.name as the user reads it, for errors. */
  readonly name: string;
  /** Quoted, for SQL. */
  readonly sqlName: string;
  readonly columns: readonly MappedColumn[];
  readonly key: readonly MappedColumn[];
}

/**
 * Reads the table from the catalog and checks the sink's mapping against it: the table exists,
 * every mapped column does, the key has a unique index (ON CONFLICT needs one). A mismatch fails
 * the job at start, naming table and column.
 */
export async function describeTable(sql: SqlRunner, target: string, options: PostgresSinkOptions): Promise<PostgresTable> {
  const { schema, table } = parseTableName(options.table);
  // As written in messages: a part is quoted only where it must be (a dot or a quote in it).
  const name = [schema, table].map((p) => (/[."]/.test(p) ? quoteIdent(p) : p)).join('.');
  const rows = await sql<{ column_name: string; udt_name: string }>(
    'SELECT column_name, udt_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 ORDER BY ordinal_position',
    [schema, table],
  );
  if (rows.length === 0) throw new SinkError('TARGET_MISMATCH', target, `table ${name} does not exist (create it, or set the sink's table)`);
  const types = new Map(rows.map((r) => [r.column_name, r.udt_name.startsWith('_') ? `${r.udt_name.slice(1)}[]` : r.udt_name]));
  const mapping = mappingOf(options.columns, rows.map((r) => r.column_name));
  const columns = mapping.map(([column, field]): MappedColumn => {
    const type = types.get(column);
    if (!type) throw new ColumnMismatchError(target, { table: name, column, field }, `it has no column ${column} (for record field ${field}); its columns: ${[...types.keys()].join(', ')}`);
    return { column, field, type };
  });
  const key = await checkKey(sql, target, name, schema, table, options.mode ?? 'insert', options.key ?? [], columns);
  return { name, sqlName: `${quoteIdent(schema)}.${quoteIdent(table)}`, columns, key };
}

function mappingOf(columns: PostgresSinkOptions['columns'], all: readonly string[]): Array<[string, string]> {
  if (columns === undefined) return all.map((c) => [c, c]);
  if (Array.isArray(columns)) return (columns as readonly string[]).map((c) => [c, c]);
  return Object.entries(columns as Record<string, string>);
}

async function checkKey(sql: SqlRunner, target: string, name: string, schema: string, table: string, mode: DatabaseSinkMode, key: readonly string[], columns: readonly MappedColumn[]): Promise<MappedColumn[]> {
  if (mode === 'insert') return [];
  if (key.length === 0) throw new SinkError('TARGET_MISMATCH', target, `mode '${mode}' writes by key: set the sink's key (the columns of a unique index of ${name})`);
  const mapped = key.map((k) => {
    const c = columns.find((m) => m.column === k);
    if (!c) throw new ColumnMismatchError(target, { table: name, column: k }, `key column ${k} is not among the sink's mapped columns (${columns.map((m) => m.column).join(', ')})`);
    return c;
  });
  const indexes = await sql<{ cols: string[] }>(
    `SELECT array_agg(a.attname::text ORDER BY a.attname) AS cols FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
      WHERE i.indrelid = (quote_ident($1) || '.' || quote_ident($2))::regclass AND i.indisunique AND i.indpred IS NULL
      GROUP BY i.indexrelid`,
    [schema, table],
  );
  const wanted = [...key].sort().join(',');
  if (!indexes.some((i) => i.cols.join(',') === wanted)) {
    throw new SinkError('TARGET_UNSUPPORTED', target, `table ${name} has no unique index on exactly (${key.join(', ')}), which mode '${mode}' needs for ON CONFLICT: add a primary key or unique index on them, or set the sink's key to one`);
  }
  return mapped;
}

const NUMERIC = new Set(['int2', 'int4', 'int8', 'numeric', 'float4', 'float8', 'money', 'oid']);
const TEMPORAL = new Set(['timestamp', 'timestamptz', 'date', 'time', 'timetz']);
const JSON_TYPES = new Set(['json', 'jsonb']);

/**
 * Whether a column of this catalog type can hold a value of the field's JS type: checked on the
 * first value of each field, so a table that does not fit fails before its first commit.
 */
export function fieldFits(type: string, value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (JSON_TYPES.has(type)) return true;
  if (type.endsWith('[]')) return Array.isArray(value);
  switch (typeof value) {
    case 'number':
    case 'bigint':
      return NUMERIC.has(type);
    case 'boolean':
      return type === 'bool';
    case 'string':
      return type !== 'bool' && type !== 'bytea';
    case 'object':
      if (value instanceof Date) return TEMPORAL.has(type);
      if (value instanceof Uint8Array) return type === 'bytea';
      return false;
    default:
      return false;
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
