import type { RowOp } from '../database-sink/row-op.ts';
import { quote, type MySqlTable } from './mysql-sink-table.ts';

export interface MySqlStatement {
  readonly text: string;
  readonly values: unknown[];
  readonly ops: readonly RowOp[];
}

/**
 * Runs of the same kind (and unchanged columns) become one multi-row statement: `INSERT … VALUES
 * ?` (mysql2 expands the rows), `ON DUPLICATE KEY UPDATE` for upserts (rows apply in order, so the
 * last of a key wins), `DELETE … WHERE (key) IN (?)` for deletes.
 */
export function mysqlStatementsFor(table: MySqlTable, ops: readonly RowOp[]): MySqlStatement[] {
  const out: MySqlStatement[] = [];
  let run: RowOp[] = [];
  const flush = () => {
    if (run.length > 0) out.push(statementOf(table, run));
    run = [];
  };
  for (const op of ops) {
    const last = run[run.length - 1];
    const same = last && last.kind === op.kind && (op.kind === 'delete' || (last.kind !== 'delete' && last.unchanged.join(',') === op.unchanged.join(',')));
    if (last && !same) flush();
    run.push(op);
  }
  flush();
  return out;
}

function statementOf(table: MySqlTable, run: RowOp[]): MySqlStatement {
  const first = run[0]!;
  if (first.kind === 'delete') {
    const keys = run.map((r) => (r.kind === 'delete' ? [...r.key] : []));
    return { text: `DELETE FROM ${table.sqlName} WHERE (${table.key.map((k) => quote(k.column)).join(', ')}) IN (?)`, values: [keys], ops: run };
  }
  const rows = run.map((r) => (r.kind === 'delete' ? [] : r.values.map(toParam)));
  const insert = `INSERT INTO ${table.sqlName} (${table.columns.map((c) => quote(c.column)).join(', ')}) VALUES ?`;
  if (first.kind === 'insert') return { text: insert, values: [rows], ops: run };
  const keys = new Set(table.key.map((k) => k.column));
  const updated = table.columns.filter((c) => !keys.has(c.column) && !first.unchanged.includes(c.column));
  // Without columns to update, a no-op update of the key keeps the statement an upsert.
  const set = (updated.length > 0 ? updated : table.key).map((c) => `${quote(c.column)} = VALUES(${quote(c.column)})`).join(', ');
  return { text: `${insert} ON DUPLICATE KEY UPDATE ${set}`, values: [rows], ops: run };
}

/** JSON values go as their text; mysql2 would expand an object into `key = value` pairs. */
function toParam(v: unknown): unknown {
  if (v === undefined) return null;
  if (v !== null && typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array)) return JSON.stringify(v);
  return v;
}
