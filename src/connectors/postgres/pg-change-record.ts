import type { CdcChangeRecord, RowImage } from '../cdc/change-record.ts';

// A row as column name -> value (how each type maps to a JS value is in pg-value-codec.ts): the
// same RowImage type as every CDC source's, so that the entry point exports one.
export type { RowImage };

/**
 * One change of one row, in the shape of the MySQL source's ChangeRecord: 'c' insert, 'u' update,
 * 'd' delete ('r' a snapshot row). Columns an update left unchanged and whose values are TOASTed
 * are absent from `after` (the WAL does not carry them) and named in `unchangedColumns`.
 */
export interface PgChangeRecord {
  readonly op: 'r' | 'c' | 'u' | 'd';
  readonly before: RowImage | null;
  readonly after: RowImage | null;
  /** 'schema.table' */
  readonly table: string;
  readonly unchangedColumns?: readonly string[];
  readonly source: PgChangeSource;
}

export interface PgChangeSource {
  readonly db: string;
  readonly schema: string;
  readonly table: string;
  /** The transaction's commit LSN ('16/B374D848'); a chunk's HIGH watermark for snapshot rows. */
  readonly lsn: string;
  /** The change's own LSN (for snapshot rows, as lsn). */
  readonly changeLsn: string;
  /** Index of the change in its transaction: (lsn, index) identifies a change and orders the stream. */
  readonly index: number;
  readonly txId: number | null;
  /** Milliseconds since the epoch: commit time, or when the chunk was read. */
  readonly ts: number;
  readonly snapshot: boolean;
}

/** What PostgresCdcSource emits: the CDC core's record with PostgreSQL's `source`. */
export type PostgresChangeRecord = CdcChangeRecord<PgChangeSource>;
