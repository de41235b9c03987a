import { SinkError } from '../../api/sink-error.ts';
import { planSchemaChange, type SchemaChangeContext, type SchemaChangePlan } from './plan-schema-change.ts';
import type { SchemaChangeSession, SinkSchemaDialect, SinkTableRef } from './sink-schema-dialect.ts';
import type { SinkSchemaChange } from './sink-table-schema.ts';

/** What applying one change did: the plan, the statements run, and whether they ran before (a replay). */
export interface AppliedSchemaChange extends SchemaChangePlan {
  readonly statements: readonly string[];
  readonly replayed: boolean;
  /** try_evolve: the target refused the statements; rows are fitted to the table as it is. */
  readonly refused?: Error;
}

/**
 * Applies a source's schema change to one sink table exactly once: a change recorded applied
 * (same id) is skipped, otherwise it is planned against the table as it is now and run. The
 * caller runs this only after the transactions holding the rows before the change committed
 * (a prepared transaction holds locks an ALTER TABLE waits for) and before any row after it.
 */
export async function applySchemaChangeOnce(
  session: SchemaChangeSession,
  dialect: SinkSchemaDialect,
  table: SinkTableRef,
  change: SinkSchemaChange,
  changeId: string,
  ctx: SchemaChangeContext,
): Promise<AppliedSchemaChange> {
  if (await session.applied(changeId)) return { apply: [], skipped: 'applied before a failover', statements: [], replayed: true };
  const plan = planSchemaChange(await session.readSchema(table), change, ctx);
  const statements = plan.apply.flatMap((c) => dialect.statements(table, c));
  try {
    await session.apply(changeId, table, statements);
    return { ...plan, statements, replayed: false };
  } catch (e) {
    if (ctx.behavior !== 'try_evolve') throw new SinkError(dialect.invalidStatement(e) ? 'SCHEMA_CHANGE_INVALID' : 'SCHEMA_CHANGE_FAILED', ctx.target, `table ${ctx.table}: ${change.kind}: ${(e as Error).message} (statements: ${statements.join('; ')})`, { cause: e });
    // Tolerated: recorded as done so that a restart does not try it forever.
    await session.apply(changeId, table, []);
    return { ...plan, statements, replayed: false, refused: e as Error };
  }
}
