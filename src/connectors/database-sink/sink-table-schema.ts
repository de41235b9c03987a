import type { LogicalType } from './logical-type.ts';

/** One column of a sink table as schema evolution sees it. */
export interface SinkColumn {
  readonly name: string;
  readonly type: LogicalType;
  readonly nullable: boolean;
}

/** A sink table's columns in order and its primary key (column names, in key order). */
export interface SinkTableSchema {
  readonly columns: readonly SinkColumn[];
  readonly primaryKey: readonly string[];
}

/**
 * A schema change in the sink's terms (Flink CDC's event types), types already read into logical
 * ones. `after` on add.column: the column it follows, null for first, absent for last.
 */
export type SinkSchemaChange =
  | { readonly kind: 'create.table'; readonly schema: SinkTableSchema }
  | { readonly kind: 'drop.table' | 'truncate.table' }
  | { readonly kind: 'add.column'; readonly column: SinkColumn; readonly after?: string | null }
  | { readonly kind: 'drop.column'; readonly column: string }
  | { readonly kind: 'rename.column'; readonly from: string; readonly to: string }
  /** A column's new type and nullability (lenient mode makes columns nullable this way). */
  | { readonly kind: 'alter.column.type'; readonly column: string; readonly type: LogicalType; readonly nullable: boolean };

export type SinkSchemaChangeKind = SinkSchemaChange['kind'];

export const SCHEMA_CHANGE_KINDS: readonly SinkSchemaChangeKind[] = ['add.column', 'alter.column.type', 'create.table', 'drop.column', 'drop.table', 'rename.column', 'truncate.table'];

export function findColumn(schema: SinkTableSchema, name: string): SinkColumn | undefined {
  return schema.columns.find((c) => c.name === name);
}

/** The table's schema after the change (undefined once dropped); the change must fit the schema. */
export function evolveSchema(schema: SinkTableSchema | undefined, change: SinkSchemaChange): SinkTableSchema | undefined {
  if (change.kind === 'create.table') return change.schema;
  if (change.kind === 'drop.table') return undefined;
  if (!schema || change.kind === 'truncate.table') return schema;
  const columns = [...schema.columns];
  switch (change.kind) {
    case 'add.column': {
      const at = change.after === null ? 0 : change.after === undefined ? columns.length : columns.findIndex((c) => c.name === change.after) + 1;
      // A column to follow that the table lacks: last.
      columns.splice(at === 0 && change.after !== null ? columns.length : at, 0, change.column);
      return { ...schema, columns };
    }
    case 'drop.column':
      return { columns: columns.filter((c) => c.name !== change.column), primaryKey: schema.primaryKey.filter((k) => k !== change.column) };
    case 'rename.column':
      return {
        columns: columns.map((c) => (c.name === change.from ? { ...c, name: change.to } : c)),
        primaryKey: schema.primaryKey.map((k) => (k === change.from ? change.to : k)),
      };
    case 'alter.column.type':
      return { ...schema, columns: columns.map((c) => (c.name === change.column ? { ...c, type: change.type, nullable: change.nullable } : c)) };
  }
}
