import { SinkError } from '../../api/sink-error.ts';

/** A table that does not fit the sink's records: names table, column, record field and both types. */
export class ColumnMismatchError extends SinkError {
  readonly table: string;
  readonly column: string;
  readonly field: string | undefined;
  readonly columnType: string | undefined;
  readonly fieldType: string | undefined;

  constructor(target: string, facts: { table: string; column: string; field?: string; columnType?: string; fieldType?: string }, problem: string) {
    super('TARGET_MISMATCH', target, `table ${facts.table}: ${problem}`);
    this.name = 'ColumnMismatchError';
    this.table = facts.table;
    this.column = facts.column;
    this.field = facts.field;
    this.columnType = facts.columnType;
    this.fieldType = facts.fieldType;
  }
}
