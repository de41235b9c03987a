import type { CdcColumn, CdcSchemaChange } from '../connectors/cdc/schema-change.ts';
import { sameLogicalType } from '../connectors/database-sink/logical-type.ts';
import type { SinkSchemaChange, SinkTableSchema } from '../connectors/database-sink/sink-table-schema.ts';
import type { SourceColumn } from './source-table-catalog.ts';

/**
 * A source table's columns after one change of its DDL. Tolerant of a change the columns already
 * show (an added column already there, a dropped one already gone): after a restart the columns
 * come from the catalog as it is now, and the log may replay changes made since the checkpoint.
 * An added column is nullable (the log's schema records say nothing of nullability).
 */
export function evolveSourceColumns(columns: readonly SourceColumn[], change: CdcSchemaChange): SourceColumn[] {
  const out = [...columns];
  switch (change.kind) {
    case 'add.column': {
      if (out.some((c) => c.name === change.column.name)) return out;
      const column = { name: change.column.name, type: change.column.type, nullable: true };
      const at = change.after === null ? 0 : change.after === undefined ? out.length : out.findIndex((c) => c.name === change.after) + 1;
      out.splice(at === 0 && change.after !== null ? out.length : at, 0, column);
      return out;
    }
    case 'drop.column':
      return out.filter((c) => c.name !== change.column);
    case 'rename.column':
      return out.some((c) => c.name === change.to) ? out : out.map((c) => (c.name === change.from ? { ...c, name: change.to } : c));
    case 'alter.column.type':
      return out.map((c) => (c.name === change.column ? { ...c, type: change.type } : c));
    default:
      return out;
  }
}

/** The columns a schema record gives, with the nullability known of those the table had. */
export function columnsOfRecord(record: readonly CdcColumn[], known: readonly SourceColumn[]): SourceColumn[] {
  const nullable = new Map(known.map((c) => [c.name, c.nullable]));
  return record.map((c) => ({ name: c.name, type: c.type, nullable: nullable.get(c.name) ?? true }));
}

/**
 * The sink table's changes that take it from `before` to `after` (both transformed), for one
 * source change: a rename stays a rename when the projection passes the column through; otherwise
 * the schemas are compared: columns only in `after` are added (after their predecessor), columns
 * only in `before` dropped, columns of another type or nullability altered. A computed column that
 * depends on a changed column changes with it. Empty when the transform hides the change (a
 * projection that does not select an added column).
 */
export function sinkChangesOf(change: CdcSchemaChange, before: SinkTableSchema, after: SinkTableSchema): SinkSchemaChange[] {
  if (change.kind === 'create.table') return [{ kind: 'create.table', schema: after }];
  if (change.kind === 'drop.table' || change.kind === 'truncate.table') return [{ kind: change.kind }];
  const out: SinkSchemaChange[] = [];
  let old = before.columns.map((c) => c.name);
  const has = (cols: SinkTableSchema, name: string) => cols.columns.some((c) => c.name === name);
  if (change.kind === 'rename.column' && has(before, change.from) && !has(before, change.to) && has(after, change.to) && !has(after, change.from)) {
    out.push({ kind: 'rename.column', from: change.from, to: change.to });
    old = old.map((n) => (n === change.from ? change.to : n));
  }
  for (const name of old) if (!has(after, name)) out.push({ kind: 'drop.column', column: name });
  after.columns.forEach((c, i) => {
    if (!old.includes(c.name)) out.push({ kind: 'add.column', column: c, after: i === 0 ? null : after.columns[i - 1]!.name });
  });
  for (const c of after.columns) {
    const was = before.columns.find((b) => b.name === c.name) ?? before.columns.find((b) => change.kind === 'rename.column' && b.name === change.from && c.name === change.to);
    if (was && (!sameLogicalType(was.type, c.type) || was.nullable !== c.nullable)) out.push({ kind: 'alter.column.type', column: c.name, type: c.type, nullable: c.nullable });
  }
  return out;
}
