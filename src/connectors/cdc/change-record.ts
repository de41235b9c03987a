import type { CdcSchemaChangeRecordBody } from './schema-change.ts';

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
  /**
   * With `includeSchemaChanges`: the version of its table's schema a log change has (0 as the
   * stream began, +1 per schema change). Snapshot rows have none.
   */
  readonly schemaVersion?: number;
}

/**
 * One change of one row, in Debezium's shape: 'r' a row read by the snapshot, 'c' an insert,
 * 'u' an update (both images), 'd' a delete. Snapshot rows carry the log position their chunk
 * was consistent at (its HIGH watermark) in `source`.
 */
export interface CdcChangeRecord<S extends CdcRecordSource = CdcRecordSource> {
  readonly op: 'r' | 'c' | 'u' | 'd' | 'ddl';
  readonly before: RowImage | null;
  readonly after: RowImage | null;
  readonly source: S;
  /**
   * Columns whose values the log did not carry because they did not change (PostgreSQL's
   * unchanged TOASTed values): absent from `after`, never reported as null. Absent when none.
   */
  readonly unchangedColumns?: readonly string[];
  /** `op: 'ddl'` only (with `includeSchemaChanges`): the changes and the table's schema after them; before and after are null. */
  readonly schemaChange?: CdcSchemaChangeRecordBody;
}
