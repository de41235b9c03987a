/** A row as column name -> value; how each SQL type maps to a JS value is in column-codec.ts. */
export type RowImage = Record<string, unknown>;

/**
 * One change of one row, in Debezium's shape: 'r' a row read by the snapshot, 'c' an insert,
 * 'u' an update (both images), 'd' a delete. `source` says where it came from: snapshot rows carry
 * the binlog position their chunk was consistent at (its HIGH watermark).
 */
export interface ChangeRecord {
  readonly op: 'r' | 'c' | 'u' | 'd';
  readonly before: RowImage | null;
  readonly after: RowImage | null;
  readonly source: ChangeSource;
}

export interface ChangeSource {
  readonly db: string;
  readonly table: string;
  readonly file: string;
  /** Start position of the binlog event (or the chunk's HIGH watermark for snapshot rows). */
  readonly pos: number;
  /** Index of the row inside its binlog event: (file, pos, row) identifies a change. */
  readonly row: number;
  readonly gtid?: string;
  /** Milliseconds since the epoch: when the change was committed, or when the chunk was read. */
  readonly ts: number;
  readonly snapshot: boolean;
}
