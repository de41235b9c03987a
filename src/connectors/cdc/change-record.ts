/** A row as column name -> value; how each SQL type maps to a JS value is the dialect's (e.g. mysql/column-codec.ts). */
export type RowImage = Record<string, unknown>;

/**
 * What every dialect's `source` says about a change: the table (its name without namespace), when
 * it was committed or read, and whether the snapshot read it. Each dialect adds where in its log
 * the change is (MySQL: db, binlog file, pos, row, gtid; PostgreSQL: schema, LSNs).
 */
export interface CdcRecordSource {
  readonly table: string;
  /** Milliseconds since the epoch: when the change was committed, or when its chunk was read. */
  readonly ts: number;
  readonly snapshot: boolean;
}

/**
 * One change of one row, in Debezium's shape: 'r' a row read by the snapshot, 'c' an insert,
 * 'u' an update (both images), 'd' a delete. Snapshot rows carry the log position their chunk
 * was consistent at (its HIGH watermark) in `source`.
 */
export interface CdcChangeRecord<S extends CdcRecordSource = CdcRecordSource> {
  readonly op: 'r' | 'c' | 'u' | 'd';
  readonly before: RowImage | null;
  readonly after: RowImage | null;
  readonly source: S;
  /**
   * Columns whose values the log did not carry because they did not change (PostgreSQL's
   * unchanged TOASTed values): absent from `after`, never reported as null. Absent when none.
   */
  readonly unchangedColumns?: readonly string[];
}
