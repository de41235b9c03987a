import type { RoutedChange } from '../connectors/database-sink/routed-change.ts';
import type { ChangeLike } from '../formats/change.ts';

/**
 * What the pipeline's transform+route operator emits: a RoutedChange (the database sinks' record)
 * with the source change's commit time and whether the snapshot read it, which the change formats
 * (debezium-json's ts_ms, canal-json's es) write. Taken from the source record, never the clock:
 * a replay writes the same bytes.
 */
export interface PipelineChange extends RoutedChange {
  readonly ts: number;
  readonly snapshot: boolean;
}

/** A row change as the change formats take it: the sink table is its `db` and `table`. */
export function asFormatChange(c: PipelineChange): ChangeLike & { readonly unchangedColumns?: readonly string[] } {
  return {
    op: c.op,
    before: c.before as ChangeLike['before'],
    after: c.after as ChangeLike['after'],
    source: { db: c.table.namespace, table: c.table.table, ts: c.ts, snapshot: c.snapshot } as ChangeLike['source'],
    ...(c.unchangedColumns ? { unchangedColumns: c.unchangedColumns } : {}),
  };
}

/** One line of the `files` and `print` sinks: the whole change, schema changes included (bigints as text). */
export function changeLine(c: PipelineChange): string {
  const { table, sourceTable, op, before, after, schemaChange, ts, snapshot, unchangedColumns } = c;
  const line = { table: `${table.namespace}.${table.table}`, sourceTable, op, ts, snapshot, before, after, ...(unchangedColumns ? { unchangedColumns } : {}), ...(schemaChange ? { schemaChange } : {}) };
  return JSON.stringify(line, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('base64') : v));
}
