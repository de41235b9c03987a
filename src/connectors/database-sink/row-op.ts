/** One row's change as the writer batches it, with the record it came from (named when the database refuses it). */
export type RowOp = RowWrite | RowDelete;
export interface RowWrite {
  readonly kind: 'insert' | 'upsert';
  readonly values: readonly unknown[];
  /** Columns the change did not carry: an update leaves them as they are. */
  readonly unchanged: readonly string[];
  readonly record: unknown;
}
export interface RowDelete {
  readonly kind: 'delete';
  readonly key: readonly unknown[];
  readonly record: unknown;
}
