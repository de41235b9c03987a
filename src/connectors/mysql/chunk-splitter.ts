import type { CdcTable } from '../cdc/cdc-dialect.ts';
import type { SnapshotSplit } from '../cdc/cdc-split.ts';
import * as core from '../cdc/chunk-splitter.ts';
import { TableNotSplittableError, type ChunkingOptions, type TablePlan } from '../cdc/chunk-splitter.ts';
import { chunkKeyKind } from './chunk-key.ts';
import { chunkBoundaries } from './chunk-queries.ts';
import type { SqlClient } from './sql-client.ts';
import type { TableSchema } from './table-schema.ts';

export { estimatedChunks, TableNotSplittableError, type TablePlan } from '../cdc/chunk-splitter.ts';

export interface SplitterOptions extends ChunkingOptions {
  /** The column each table is split by, by table name (or db.table); default the first primary key column. */
  readonly chunkKeyColumn: Readonly<Record<string, string>>;
}

/** A MySQL table's chunk key: the configured column or the primary key's first, of a type the core can order. */
export function chunkTable(schema: TableSchema, chunkKeyColumn: Readonly<Record<string, string>>): CdcTable {
  const { db, table } = schema;
  const name = `${db}.${table}`;
  const keyColumn = chunkKeyColumn[table] ?? chunkKeyColumn[name] ?? schema.primaryKey[0];
  if (!keyColumn) {
    throw new TableNotSplittableError(name, 'it has no primary key; give a chunk key column for it in the chunkKeyColumn option (e.g. { orders: "id" })');
  }
  const column = schema.columns.find((c) => c.name === keyColumn);
  if (!column) throw new TableNotSplittableError(name, `chunk key column '${keyColumn}' does not exist (columns: ${schema.columns.map((c) => c.name).join(', ')})`);
  return { db, table, keyColumn, keyKind: chunkKeyKind(name, keyColumn, column.dataType, column.columnType, column.collation) };
}

/** Looks at a table once: its chunk key, key range and size decide between arithmetic and queried boundaries. */
export async function planTable(sql: SqlClient, schema: TableSchema, o: SplitterOptions): Promise<TablePlan> {
  return core.planTable(chunkBoundaries(sql), chunkTable(schema, o.chunkKeyColumn), o);
}

/** The next chunk of a table and the plan after it; null when the table is fully cut. */
export function nextChunk(sql: SqlClient, plan: TablePlan, chunkSize: number): Promise<{ split: SnapshotSplit; plan: TablePlan } | null> {
  return core.nextChunk(chunkBoundaries(sql), plan, chunkSize);
}
