import type { MappedColumn, PostgresTable } from './postgres-table.ts';
import { quoteIdent } from './postgres-table.ts';
import { copyText } from './copy-text.ts';
import { pgArrayText } from './pg-array-text.ts';
import type { RowDelete, RowOp, RowWrite } from '../database-sink/row-op.ts';

export interface Statement {
  readonly text: string;
  readonly values: unknown[];
  /** COPY's input (text format), for a COPY … FROM STDIN. */
  readonly copy?: string;
  /** The row changes it applies, in order. */
  readonly ops: readonly RowOp[];
}

/**
 * The statements for a batch of row changes, in order: runs of the same kind (and, for upserts,
 * the same unchanged columns) become one statement: inserts a COPY, the others over arrays (`unnest`), one parameter per
 * column whatever the number of rows; inserts go by COPY. An upsert run keeps the last change of each key, since one
 * statement may not update a row twice.
 */
export function statementsFor(table: PostgresTable, ops: readonly RowOp[], useCopy = true): Statement[] {
  const out: Statement[] = [];
  let run: RowOp[] = [];
  const flush = () => {
    if (run.length > 0) out.push(useCopy && run[0]!.kind === 'insert' ? copyStatement(table, run as RowWrite[]) : statementOf(table, run));
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
  const values = columns.map((c, i) => rows.map((r) => param(c, r.values[i])));
  const insert = `INSERT INTO ${table.sqlName} (${columns.map((c) => quoteIdent(c.column)).join(', ')}) ${unnestSelect(columns)}`;
  if (first.kind === 'insert') return { text: insert, values, ops: run };
  const keys = new Set(table.key.map((k) => k.column));
  const updated = columns.filter((c) => !keys.has(c.column) && !first.unchanged.includes(c.column));
  const conflict = `ON CONFLICT (${table.key.map((k) => quoteIdent(k.column)).join(', ')})`;
  const action = updated.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${updated.map((c) => `${quoteIdent(c.column)} = EXCLUDED.${quoteIdent(c.column)}`).join(', ')}`;
  return { text: `${insert} ${conflict} ${action}`, values, ops: run };
}

/** Inserts are COPY'd: the fastest way into PostgreSQL, and as transactional as an INSERT. */
function copyStatement(table: PostgresTable, run: RowWrite[]): Statement {
  const arrays = table.columns.flatMap((c, i) => (isArrayColumn(c) ? [i] : []));
  const rows = arrays.length === 0 ? run.map((r) => r.values) : run.map((r) => withArrayText(r.values, arrays));
  return { text: `COPY ${table.sqlName} (${table.columns.map((c) => quoteIdent(c.column)).join(', ')}) FROM STDIN`, values: [], copy: copyText(rows), ops: run };
}

function deleteStatement(table: PostgresTable, run: RowDelete[]): Statement {
  const key = table.key;
  const values = key.map((k, i) => run.map((r) => param(k, r.key[i])));
  const text = `DELETE FROM ${table.sqlName} WHERE (${key.map((k) => quoteIdent(k.column)).join(', ')}) IN (${unnestSelect(key)})`;
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

/**
 * The rows of one parameter per column, each an array of the column's values. Array columns go
 * as text (their array input) and are cast back: unnest would flatten an array of arrays.
 */
function unnestSelect(columns: readonly MappedColumn[]): string {
  const params = columns.map((c, i) => `$${i + 1}::${isArrayColumn(c) ? 'text' : quoteIdent(c.type)}[]`).join(', ');
  if (!columns.some(isArrayColumn)) return `SELECT * FROM unnest(${params})`;
  const casts = columns.map((c, i) => (isArrayColumn(c) ? `u.c${i}::${quoteIdent(c.type.slice(0, -2))}[]` : `u.c${i}`));
  return `SELECT ${casts.join(', ')} FROM unnest(${params}) AS u(${columns.map((_, i) => `c${i}`).join(', ')})`;
}

function isArrayColumn(c: MappedColumn): boolean {
  return c.type.endsWith('[]');
}

function param(c: MappedColumn, v: unknown): unknown {
  if (v === undefined || v === null) return null;
  return isArrayColumn(c) && Array.isArray(v) ? pgArrayText(v) : v;
}

function withArrayText(values: readonly unknown[], arrays: readonly number[]): unknown[] {
  const out = [...values];
  for (const i of arrays) if (Array.isArray(out[i])) out[i] = pgArrayText(out[i] as unknown[]);
  return out;
}
