import type { SinkTableRef } from './sink-schema-dialect.ts';
import type { SinkSchemaChange, SinkTableSchema } from './sink-table-schema.ts';

/** A schema change on its way to one sink table, one change per record. */
export interface RoutedSchemaChange {
  readonly change: SinkSchemaChange;
  /** The sink table's schema after the change, as the rows after it have it (transforms applied). */
  readonly schema: SinkTableSchema;
  /**
   * Unique to the source change (its log position and the change's index in the statement):
   * the target records it applied under this id, so a replay after a failover skips it.
   */
  readonly id: string;
}

/**
 * What a pipeline sends its sink: a row change or a schema change, routed to its sink table and
 * transformed. A pipeline keys its sink by `table`, so one subtask owns each sink table: its
 * rows and schema changes stay in order there, and a change waits only for that subtask's
 * commits. A table's first record in a run is its `create.table` (the source's schema
 * transformed), which a target that has the table plans to nothing.
 */
export interface RoutedChange {
  readonly table: SinkTableRef;
  /** The source table, `namespace.table`: for errors and the dashboard. */
  readonly sourceTable: string;
  readonly op: 'r' | 'c' | 'u' | 'd' | 'ddl';
  readonly before: Readonly<Record<string, unknown>> | null;
  readonly after: Readonly<Record<string, unknown>> | null;
  /** Columns the change did not carry (PostgreSQL's unchanged TOASTed values): left as they are. */
  readonly unchangedColumns?: readonly string[];
  /** `op: 'ddl'` only. */
  readonly schemaChange?: RoutedSchemaChange;
  /** When the source committed the change (ms since the epoch), where known (a pipeline's changes): what the sink's figures name a schema change by. */
  readonly ts?: number;
}

/** The sink table of a routed change, `namespace.table`: what a pipeline keys its sink by. */
export function routedTableKey(c: RoutedChange): string {
  return `${c.table.namespace}.${c.table.table}`;
}
