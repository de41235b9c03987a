import type { MappedColumn, PostgresTable } from './postgres-table.ts';
import { quoteIdent } from './postgres-table.ts';
import type { RowDelete, RowOp, RowWrite } from '../database-sink/row-op.ts';

export interface Statement {
  readonly text: string;
  readonly values: unknown[];
  /** The row changes it applies, in order. */
  readonly ops: readonly RowOp[];
}

/**
 * The statements for a batch of row changes, in order: runs of the same kind (and, for upserts,
 * the same unchanged columns) become one statement over arrays (`unnest`), one parameter per
 * column whatever the number of rows. An upsert run keeps the last change of each key, since one
 * statement may not update a row twice. (An insert-mode writer COPYs instead: CopyInsertStream.)
 */
export function statementsFor(table: PostgresTable, ops: readonly RowOp[]): Statement[] {
  const out: Statement[] = [];
  let run: RowOp[] = [];
  const flush = () => {
    if (run.length > 0) out.push(statementOf(table, run));
    run = [];
  };
  for (const op of ops) {
    const last = run[run.length - 1];
    if (last && !sameRun(last, op)) flush();
    run.push(op);
  }
  flush();
  return out;
}

function sameRun(a: RowOp, b: RowOp): boolean {
  if (a.kind !== b.kind) return false;
  return a.kind === 'delete' || (b.kind !== 'delete' && a.unchanged.join(',') === b.unchanged.join(','));
}

function statementOf(table: PostgresTable, run: RowOp[]): Statement {
  const first = run[0]!;
  if (first.kind === 'delete') return deleteStatement(table, run as RowDelete[]);
  const rows = first.kind === 'upsert' ? lastPerKey(table, run as RowWrite[]) : (run as RowWrite[]);
  const columns = table.columns;
  const values = columns.map((_, i) => rows.map((r) => r.values[i] ?? null));
  const insert = `INSERT INTO ${table.sqlName} (${columns.map((c) => quoteIdent(c.column)).join(', ')}) SELECT * FROM unnest(${columns.map((c, i) => `$${i + 1}::${arrayType(c)}`).join(', ')})`;
  if (first.kind === 'insert') return { text: insert, values, ops: run };
  const keys = new Set(table.key.map((k) => k.column));
  const updated = columns.filter((c) => !keys.has(c.column) && !first.unchanged.includes(c.column));
  const conflict = `ON CONFLICT (${table.key.map((k) => quoteIdent(k.column)).join(', ')})`;
  const action = updated.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${updated.map((c) => `${quoteIdent(c.column)} = EXCLUDED.${quoteIdent(c.column)}`).join(', ')}`;
  return { text: `${insert} ${conflict} ${action}`, values, ops: run };
}

function deleteStatement(table: PostgresTable, run: RowDelete[]): Statement {
  const key = table.key;
  const values = key.map((_, i) => run.map((r) => r.key[i] ?? null));
  const text = `DELETE FROM ${table.sqlName} WHERE (${key.map((k) => quoteIdent(k.column)).join(', ')}) IN (SELECT * FROM unnest(${key.map((k, i) => `$${i + 1}::${arrayType(k)}`).join(', ')}))`;
  return { text, values, ops: run };
}

/** The last change of each key, in the order of those last changes. */
function lastPerKey(table: PostgresTable, run: RowWrite[]): RowWrite[] {
  const index = table.key.map((k) => table.columns.indexOf(k));
  const byKey = new Map<string, RowWrite>();
  for (const op of run) {
    const k = JSON.stringify(index.map((i) => keyText(op.values[i])));
    byKey.delete(k);
    byKey.set(k, op);
  }
  return [...byKey.values()];
}

function keyText(v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v instanceof Date ? v.toISOString() : v;
}

function arrayType(c: MappedColumn): string {
  return `${quoteIdent(c.type)}[]`;
}
