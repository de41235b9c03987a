import type { SinkSchemaChange, SinkTableSchema } from './sink-table-schema.ts';

/** A sink table: its namespace (PostgreSQL's schema, MySQL's database) and name, unquoted. */
export interface SinkTableRef {
  readonly namespace: string;
  readonly table: string;
}

/** How one database makes schema changes: the statements for a change (a dialect renders, never runs). */
export interface SinkSchemaDialect {
  readonly name: string;
  statements(table: SinkTableRef, change: SinkSchemaChange): string[];
  /** The server refused the statements themselves (syntax, a limit, an unknown type), not the table's data or a lock: no replay can succeed. */
  invalidStatement(e: unknown): boolean;
}

/**
 * A connection to the sink's database as schema evolution uses it. Changes are recorded by id in
 * a table of the target (`weir_schema_changes`), so one applied before a failover is not applied
 * again when the source brings it once more (FLINK-36701).
 */
export interface SchemaChangeSession {
  /** The table as the target has it now; undefined when there is none. */
  readSchema(table: SinkTableRef): Promise<SinkTableSchema | undefined>;
  applied(changeId: string): Promise<boolean>;
  /**
   * Runs the statements and records the id. PostgreSQL: one transaction (its DDL is
   * transactional). MySQL: statements, then the record (its DDL commits by itself); a change
   * whose record was lost to a crash is found applied by reading the table again.
   */
  apply(changeId: string, table: SinkTableRef, statements: readonly string[]): Promise<void>;
}

/** What a schema-change session needs of a connection: rows for a statement (PgSqlClient fits; mysql2 through mysql2Runner). */
export interface SqlRunner {
  query(sql: string, params?: readonly unknown[]): Promise<unknown[]>;
}

/** The table recording applied changes, made on first use. */
export const SCHEMA_CHANGES_TABLE = 'weir_schema_changes';
