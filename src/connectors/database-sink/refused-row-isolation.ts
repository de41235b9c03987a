import type { DeadLetter } from '../../api/dead-letter.ts';
import type { RowOp } from './row-op.ts';

/** What isolating refused rows needs of a database: its statements, its savepoints, its errors. */
export interface RefusalIsolation<S extends { readonly ops: readonly RowOp[] }> {
  /** Runs a statement without parameters (SAVEPOINT, ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT). */
  control(text: string): Promise<void>;
  run(statement: S): Promise<void>;
  /** The statements that apply one record's changes alone. */
  statementsOf(ops: readonly RowOp[]): readonly S[];
  /** An error about the row itself, which a replay would meet again. */
  isRefusal(e: unknown): boolean;
  /** The dead letter of a record refused with this error. */
  letterOf(record: unknown, e: unknown): DeadLetter;
  refused(letter: DeadLetter): void;
}

/**
 * With a dead-letter output, a batch (its statements) runs inside a savepoint of the checkpoint's
 * transaction: a refusal rolls back to it, and the batch is applied again record by record, each
 * in a savepoint of its own, so the refused records are left out (and reported) and every other
 * one stays in the transaction. A record's changes stay together (an update that moves a key is a
 * delete and an insert). Other errors (the connection, the server) fail the writer as before.
 */
export async function runIsolatingRefusals<S extends { readonly ops: readonly RowOp[] }>(statements: readonly S[], db: RefusalIsolation<S>): Promise<void> {
  const ops = statements.flatMap((s) => s.ops);
  if (ops.length === 0) {
    for (const s of statements) await db.run(s);
    return;
  }
  await db.control('SAVEPOINT weir_batch');
  try {
    for (const s of statements) await db.run(s);
  } catch (e) {
    if (!db.isRefusal(e)) throw e;
    await db.control('ROLLBACK TO SAVEPOINT weir_batch');
    for (const one of byRecord(ops)) await applyOne(db, one);
  }
  await db.control('RELEASE SAVEPOINT weir_batch');
}

async function applyOne<S extends { readonly ops: readonly RowOp[] }>(db: RefusalIsolation<S>, ops: readonly RowOp[]): Promise<void> {
  await db.control('SAVEPOINT weir_row');
  try {
    for (const s of db.statementsOf(ops)) await db.run(s);
  } catch (e) {
    if (!db.isRefusal(e)) throw e;
    await db.control('ROLLBACK TO SAVEPOINT weir_row');
    db.refused(db.letterOf(ops[0]!.record, e));
  }
  await db.control('RELEASE SAVEPOINT weir_row');
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
