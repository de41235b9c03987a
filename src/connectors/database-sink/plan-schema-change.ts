import { sameLogicalType } from './logical-type.ts';
import { acceptedSchemaChanges, type SchemaChangeBehavior, type SchemaChangeTypeFilter } from './schema-change-behavior.ts';
import { SchemaChangeRefusedError } from './schema-change-refused-error.ts';
import { evolveSchema, findColumn, type SinkColumn, type SinkSchemaChange, type SinkTableSchema } from './sink-table-schema.ts';

/** What to do with one source change at one sink table: the changes to apply (maybe none) and, when none, why. */
export interface SchemaChangePlan {
  readonly apply: readonly SinkSchemaChange[];
  readonly skipped?: string;
  /** The behaviour or include/exclude.schema.changes left the change out (not: the table already had it). */
  readonly excluded?: true;
}

export interface SchemaChangeContext {
  /** The sink, for errors (server, database). */
  readonly target: string;
  readonly table: string;
  readonly behavior: SchemaChangeBehavior;
  readonly filter?: SchemaChangeTypeFilter;
}

/**
 * Plans a source's schema change against the sink table as it is now (`current`, undefined when
 * the table does not exist). Planning against the table, not the source, is what lets several
 * source tables routed into one (shards) each bring the same change once, and what makes a
 * change seen again after a failover a no-op where the table shows it applied.
 */
export function planSchemaChange(current: SinkTableSchema | undefined, change: SinkSchemaChange, ctx: SchemaChangeContext): SchemaChangePlan {
  if (!acceptedSchemaChanges(ctx.behavior, ctx.filter).has(change.kind)) {
    if (ctx.behavior === 'exception') throw new SchemaChangeRefusedError(ctx.target, ctx.table, change.kind, 'schema.change.behavior is exception: set it to evolve, try_evolve or lenient to follow schema changes');
    return { apply: [], excluded: true, skipped: `not applied: ${ctx.behavior === 'ignore' ? 'schema.change.behavior is ignore' : 'excluded by the sink\'s include/exclude.schema.changes or the behaviour'}` };
  }
  const rewritten = ctx.behavior === 'lenient' && current ? lenient(current, change) : [change];
  const apply: SinkSchemaChange[] = [];
  let schema = current;
  for (const c of rewritten) {
    const needed = againstTable(schema, c);
    apply.push(...needed);
    for (const n of needed) schema = evolveSchema(schema, n);
  }
  return apply.length > 0 ? { apply } : { apply, skipped: 'the table already has it' };
}

/** Flink CDC's lenient rewriting (SchemaDerivator): nothing the table holds is lost, and added columns are nullable. */
function lenient(current: SinkTableSchema, change: SinkSchemaChange): SinkSchemaChange[] {
  switch (change.kind) {
    case 'add.column':
      return [{ kind: 'add.column', column: { ...change.column, nullable: true } }];
    case 'drop.column': {
      const col = findColumn(current, change.column);
      return col && !col.nullable ? [nullable(col)] : [];
    }
    case 'rename.column': {
      const col = findColumn(current, change.from);
      if (!col) return [];
      const add: SinkSchemaChange = { kind: 'add.column', column: { ...col, name: change.to, nullable: true } };
      return col.nullable ? [add] : [add, nullable(col)];
    }
    default:
      return [change];
  }
}

function nullable(col: SinkColumn): SinkSchemaChange {
  return { kind: 'alter.column.type', column: col.name, type: col.type, nullable: true };
}

/** The part of a change the table does not show yet. */
function againstTable(current: SinkTableSchema | undefined, change: SinkSchemaChange): SinkSchemaChange[] {
  if (change.kind === 'create.table') {
    if (!current) return [change];
    // Another source table routed here created it first: what this one has more comes as nullable columns.
    return change.schema.columns.filter((c) => !findColumn(current, c.name)).map((c) => ({ kind: 'add.column', column: { ...c, nullable: true } }));
  }
  // Nothing to change on a table that is not there (dropped, or never created: its rows fail with the table's name).
  if (!current) return [];
  switch (change.kind) {
    case 'add.column':
      return findColumn(current, change.column.name) ? [] : [change];
    case 'drop.column':
      return findColumn(current, change.column) ? [change] : [];
    case 'rename.column':
      return findColumn(current, change.from) && !findColumn(current, change.to) ? [change] : [];
    case 'alter.column.type': {
      const col = findColumn(current, change.column);
      return col && (!sameLogicalType(col.type, change.type) || col.nullable !== change.nullable) ? [change] : [];
    }
    default:
      return [change];
  }
}
