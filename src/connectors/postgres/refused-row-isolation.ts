import type { DeadLetter } from '../../api/dead-letter.ts';
import type { RowOp } from '../database-sink/row-op.ts';
import { isRefusal, sqlState, type PgConnection } from './pg-connection.ts';
import { statementsFor, type Statement } from './postgres-statements.ts';
import type { PostgresTable } from './postgres-table.ts';

/**
 * With a dead-letter output, a batch (its statements) runs inside a savepoint of the checkpoint's transaction: a
 * refusal rolls back to it, and the batch is applied again record by record, each in a savepoint
 * of its own, so the refused records are left out (and reported) and every other one stays in the
 * transaction. A record's changes stay together (an update that moves a key is a delete and an
 * insert). Other errors (the connection, the server) fail the writer as before.
 */
export async function runIsolatingRefusals(
  connection: PgConnection,
  run: (statement: Statement) => Promise<void>,
  o: { table: PostgresTable; target: string; statements: readonly Statement[]; refused: (letter: DeadLetter) => void },
): Promise<void> {
  const ops = o.statements.flatMap((s) => s.ops);
  if (ops.length === 0) {
    for (const s of o.statements) await run(s);
    return;
  }
  await connection.sql('SAVEPOINT weir_batch');
  try {
    for (const s of o.statements) await run(s);
  } catch (e) {
    if (!isRefusal(e)) throw e;
    await connection.sql('ROLLBACK TO SAVEPOINT weir_batch');
    for (const one of byRecord(ops)) await applyOne(connection, o, one);
  }
  await connection.sql('RELEASE SAVEPOINT weir_batch');
}

async function applyOne(connection: PgConnection, o: { table: PostgresTable; target: string; refused: (letter: DeadLetter) => void }, ops: readonly RowOp[]): Promise<void> {
  await connection.sql('SAVEPOINT weir_row');
  try {
    for (const s of statementsFor(o.table, ops, false)) await connection.sql(s.text, s.values);
  } catch (e) {
    if (!isRefusal(e)) throw e;
    await connection.sql('ROLLBACK TO SAVEPOINT weir_row');
    o.refused(deadLetterOf(o.target, o.table.name, ops[0]!.record, e));
  }
  await connection.sql('RELEASE SAVEPOINT weir_row');
}

/** Consecutive changes of the same record. */
function byRecord(ops: readonly RowOp[]): RowOp[][] {
  const out: RowOp[][] = [];
  for (const op of ops) {
    const last = out[out.length - 1];
    if (last && last[0]!.record === op.record) last.push(op);
    else out.push([op]);
  }
  return out;
}

function deadLetterOf(target: string, table: string, record: unknown, e: unknown): DeadLetter {
  const { constraint, detail } = e as { constraint?: string; detail?: string };
  const message = e instanceof Error ? e.message : String(e);
  const code = sqlState(e);
  return { record, target, table, ...(constraint ? { constraint } : {}), ...(code ? { code } : {}), reason: detail ? `${message} (${detail})` : message };
}
