/**
 * Schema changes as the CDC core tracks them, in Flink CDC's event-type names. A dialect reports
 * what its log says (MySQL: a parsed DDL statement; PostgreSQL: the columns of a RELATION message,
 * a TRUNCATE); the core's SchemaTracker keeps each table's columns and version in the log split,
 * so a restore continues from the schemas the checkpoint's position had.
 */

/** One column as a schema change describes it; `type` is the dialect's type text ('varchar(20)', 'int4'). */
export interface CdcColumn {
  readonly name: string;
  readonly type: string;
}

export type CdcSchemaChangeKind = 'create.table' | 'drop.table' | 'truncate.table' | 'add.column' | 'drop.column' | 'rename.column' | 'alter.column.type';

/** One change of a DDL statement (an ALTER TABLE may make several). */
export type CdcSchemaChange =
  | { readonly kind: 'create.table' | 'drop.table' | 'truncate.table' }
  /** `after`: the column it follows, null for first, absent for last. */
  | { readonly kind: 'add.column'; readonly column: CdcColumn; readonly after?: string | null }
  | { readonly kind: 'drop.column'; readonly column: string }
  | { readonly kind: 'rename.column'; readonly from: string; readonly to: string }
  | { readonly kind: 'alter.column.type'; readonly column: string; readonly type: string };

/** A table's schema as tracked: its columns in order and its version (0 as the stream began, +1 per change). */
export interface CdcTableSchema {
  readonly db: string;
  readonly table: string;
  readonly version: number;
  readonly columns: readonly CdcColumn[];
  /** The primary key's columns, where the schema was read from the catalog (a table added later, before its first chunk). */
  readonly primaryKey?: readonly string[];
}

/**
 * A schema change in the log, carried by the rows or boundary event that follows it. Either `changes` (the dialect parsed a statement; for
 * create.table `columns` are the new table's) or only `columns` (the table's columns now, diffed
 * against the tracked ones). `primaryKeyDropped`: the statement removed the table's primary key.
 */
export interface CdcSchemaEvent<P, S> {
  readonly db: string;
  readonly table: string;
  readonly changes?: readonly CdcSchemaChange[];
  readonly columns?: readonly CdcColumn[];
  readonly primaryKeyDropped?: boolean;
  /**
   * Set when the dialect could not tell what the statement does (its parser failed): the core
   * logs it with its text and position and counts it; the tables' tracked schemas stay.
   */
  readonly unrecognized?: string;
  /** The statement's text, where the log has one. */
  readonly statement?: string;
  readonly at: P;
  readonly ts: number;
  readonly source: S;
}

/** What an `op: 'ddl'` record carries: the changes and the table's schema after them. */
export interface CdcSchemaChangeRecordBody {
  readonly changes: readonly CdcSchemaChange[];
  readonly schema: CdcTableSchema;
  readonly statement?: string;
}
