import type { ChangeRecordLike } from './change-record-like.ts';
import { ColumnMismatchError } from './column-mismatch-error.ts';
import type { RowOp } from './row-op.ts';
import type { DatabaseSinkMode } from './sink-mode.ts';

/** A mapped column as the builder needs it. */
export interface BuilderColumn {
  readonly column: string;
  readonly field: string;
  readonly type: string;
}

export interface RowOpBuilderSetup {
  readonly table: { readonly name: string; readonly columns: readonly BuilderColumn[]; readonly key: readonly BuilderColumn[] };
  readonly mode: DatabaseSinkMode;
  readonly target: string;
  /** Whether a column of the database's type can hold the JS value. */
  readonly fits: (type: string, value: unknown) => boolean;
}

/**
 * Records to row changes: insert and upsert records are rows; a change record is an upsert of its
 * after image or a delete by its before image's key (an update that changes the key is both).
 * Each field's first value is checked against its column's type.
 */
export class RowOpBuilder {
  readonly #s: RowOpBuilderSetup;
  readonly #keyIndex: number[];
  /** Per column: whether its field's first value was checked. */
  readonly #checked: boolean[] = [];

  constructor(setup: RowOpBuilderSetup) {
    this.#s = setup;
    this.#keyIndex = setup.table.key.map((k) => setup.table.columns.indexOf(k));
  }

  opsOf(record: unknown, out: RowOp[]): void {
    const { mode, table } = this.#s;
    if (mode !== 'changelog') {
      out.push({ kind: mode, values: this.#values(record as Record<string, unknown>), unchanged: NONE, record });
      return;
    }
    const change = record as ChangeRecordLike;
    // A schema change record (includeSchemaChanges) changes no row.
    if ((change.op as string) === 'ddl') return;
    const keyOf = (values: readonly unknown[]) => this.#keyIndex.map((i) => values[i]);
    const before = change.before ? this.#values(change.before) : undefined;
    if (change.op === 'd') {
      out.push({ kind: 'delete', key: keyOf(before ?? this.#values({})), record });
      return;
    }
    const after = this.#values(change.after ?? {});
    if (change.op === 'u' && before && JSON.stringify(keyOf(before), bigints) !== JSON.stringify(keyOf(after), bigints)) out.push({ kind: 'delete', key: keyOf(before), record });
    const unchanged = change.unchangedColumns ? table.columns.filter((c) => change.unchangedColumns!.includes(c.field)).map((c) => c.column) : [];
    out.push({ kind: 'upsert', values: after, unchanged, record });
  }

  /** The value of column `i` in a record's row, null when absent; a field's first value is checked against its column. */
  valueOf(row: Record<string, unknown>, i: number): unknown {
    const v = row[this.#s.table.columns[i]!.field];
    if (v === null || v === undefined) return null;
    if (!this.#checked[i]) this.#check(i, v);
    return v;
  }

  #values(row: Record<string, unknown>): unknown[] {
    const n = this.#s.table.columns.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = this.valueOf(row, i);
    return out;
  }

  #check(i: number, value: unknown): void {
    const c = this.#s.table.columns[i]!;
    if (!this.#s.fits(c.type, value)) {
      const facts = { table: this.#s.table.name, column: c.column, field: c.field, columnType: c.type, fieldType: jsTypeOf(value) };
      throw new ColumnMismatchError(this.#s.target, facts, `column ${c.column} (${c.type}) cannot hold record field ${c.field} (${jsTypeOf(value)}): change the column's type or the sink's columns mapping`);
    }
    this.#checked[i] = true;
  }
}

const NONE: readonly string[] = Object.freeze([]);

export function jsTypeOf(value: unknown): string {
  if (value instanceof Date) return 'Date';
  if (value instanceof Uint8Array) return 'Uint8Array';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function bigints(_k: string, v: unknown): unknown {
  return typeof v === 'bigint' ? `${v}n` : v;
}
