import { RecordRefusedError } from '../database-sink/record-refused-error.ts';
import { isRefusal, type PgConnection } from './pg-connection.ts';
import { statementsFor, type Statement } from './postgres-statements.ts';
import type { PostgresTable } from './postgres-table.ts';

/**
 * Which record of a refused batch the database refuses. A COPY's error names its line (one row
 * change a line, in order). Otherwise each change is tried alone in a transaction that is rolled
 * back, so nothing becomes visible; a row refused only together with others of the transaction
 * (a duplicate of an earlier batch) is named as the batch's first.
 */
export async function identifyRefusal(o: { table: PostgresTable; target: string; diagnose: () => Promise<PgConnection>; statement: Statement; error: unknown }): Promise<RecordRefusedError> {
  const refused = (record: unknown, e: unknown) => {
    const constraint = (e as { constraint?: string }).constraint;
    const detail = (e as { detail?: string }).detail;
    const message = e instanceof Error ? e.message : String(e);
    return new RecordRefusedError(o.target, o.table.name, constraint, record, detail ? `${message} (${detail})` : message, { cause: e });
  };
  const line = copyLine(o.error);
  if (line !== undefined && o.statement.ops[line - 1]) return refused(o.statement.ops[line - 1]!.record, o.error);
  let connection: PgConnection | undefined;
  try {
    connection = await o.diagnose();
    await connection.sql('BEGIN');
    for (const op of o.statement.ops) {
      await connection.sql('SAVEPOINT weir_row');
      try {
        for (const s of statementsFor(o.table, [op], false)) await connection.sql(s.text, s.values);
        await connection.sql('RELEASE SAVEPOINT weir_row');
      } catch (e) {
        if (isRefusal(e)) return refused(op.record, e);
        throw e;
      }
    }
  } catch {
    // The diagnosis is a courtesy: without it the batch's first record is named.
  } finally {
    if (connection) await connection.sql('ROLLBACK').catch(() => {});
    await connection?.end();
  }
  return refused(o.statement.ops[0]!.record, o.error);
}

/** The line of a COPY's data the server refused: its error's context reads `COPY <table>, line <n>…`. */
function copyLine(e: unknown): number | undefined {
  const where = (e as { where?: unknown } | null)?.where;
  const m = typeof where === 'string' ? /^COPY [^\n]*?, line (\d+)/.exec(where) : null;
  return m ? Number(m[1]) : undefined;
}
