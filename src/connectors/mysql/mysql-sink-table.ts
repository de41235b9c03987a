import { SinkError } from '../../api/sink-error.ts';
import { ColumnMismatchError } from '../database-sink/column-mismatch-error.ts';
import type { MySqlSinkOptions } from './mysql-sink-options.ts';
import type { MySqlRunner } from './mysql-sink-connection.ts';

export interface MySqlMappedColumn {
  readonly column: string;
  readonly field: string;
  /** information_schema DATA_TYPE (`int`, `varchar`, `datetime`, ...). */
  readonly type: string;
}

export interface MySqlTable {
  /** database.table, for errors. */
  readonly name: string;
  readonly sqlName: string;
  readonly columns: readonly MySqlMappedColumn[];
  readonly key: readonly MySqlMappedColumn[];
}

/** Reads the table from information_schema and checks the sink's mapping and key against it (as PostgresSink does). */
export async function describeMySqlTable(sql: MySqlRunner, target: string, options: MySqlSinkOptions): Promise<MySqlTable> {
  const database = options.connection.database;
  const name = `${database}.${options.table}`;
  const rows = await sql<{ name: string; type: string }>(
    'SELECT COLUMN_NAME AS name, DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION',
    [database, options.table],
  );
  if (rows.length === 0) throw new SinkError('TARGET_MISMATCH', target, `table ${name} does not exist (create it, or set the sink's table)`);
  const types = new Map(rows.map((r) => [r.name, r.type.toLowerCase()]));
  const mapping: Array<[string, string]> =
    options.columns === undefined ? rows.map((r) => [r.name, r.name]) : Array.isArray(options.columns) ? (options.columns as string[]).map((c) => [c, c]) : Object.entries(options.columns as Record<string, string>);
  const columns = mapping.map(([column, field]): MySqlMappedColumn => {
    const type = types.get(column);
    if (!type) throw new ColumnMismatchError(target, { table: name, column, field }, `it has no column ${column} (for record field ${field}); its columns: ${[...types.keys()].join(', ')}`);
    return { column, field, type };
  });
  const mode = options.mode ?? 'insert';
  const key = options.key ?? [];
  if (mode === 'insert') return { name, sqlName: `${quote(database)}.${quote(options.table)}`, columns, key: [] };
  const mapped = key.map((k) => {
    const c = columns.find((m) => m.column === k);
    if (!c) throw new ColumnMismatchError(target, { table: name, column: k }, `key column ${k} is not among the sink's mapped columns (${columns.map((m) => m.column).join(', ')})`);
    return c;
  });
  const indexes = await sql<{ cols: string }>(
    "SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY COLUMN_NAME SEPARATOR ',') AS cols FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND NON_UNIQUE = 0 GROUP BY INDEX_NAME",
    [database, options.table],
  );
  if (!indexes.some((i) => i.cols === [...key].sort().join(','))) {
    throw new SinkError('TARGET_UNSUPPORTED', target, `table ${name} has no unique index on exactly (${key.join(', ')}), which mode '${mode}' needs for ON DUPLICATE KEY UPDATE: add a primary key or unique index on them, or set the sink's key to one`);
  }
  return { name, sqlName: `${quote(database)}.${quote(options.table)}`, columns, key: mapped };
}

const NUMERIC = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'bigint', 'decimal', 'double', 'float', 'bit', 'year']);
const TEMPORAL = new Set(['datetime', 'timestamp', 'date', 'time']);
const BINARY = new Set(['blob', 'tinyblob', 'mediumblob', 'longblob', 'binary', 'varbinary']);

/** Whether a column of this DATA_TYPE can hold the field's JS value (checked on each field's first value). */
export function mysqlFieldFits(type: string, value: unknown): boolean {
  if (value === null || value === undefined || type === 'json') return true;
  switch (typeof value) {
    case 'number':
    case 'bigint':
    case 'boolean':
      return NUMERIC.has(type);
    case 'string':
      return true;
    case 'object':
      if (value instanceof Date) return TEMPORAL.has(type);
      if (value instanceof Uint8Array) return BINARY.has(type);
      return type.endsWith('text');
    default:
      return false;
  }
}

export function quote(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}
