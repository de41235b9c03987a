import type { CdcChangeRecord, CdcRecordSource } from '../cdc/change-record.ts';

export type { RowImage } from '../cdc/change-record.ts';

/**
 * One change of one row (the CDC core's record with MySQL's `source`): 'r' a row read by the
 * snapshot, 'c' an insert, 'u' an update (both images), 'd' a delete. Snapshot rows carry the
 * binlog position their chunk was consistent at (its HIGH watermark).
 */
export type ChangeRecord = CdcChangeRecord<ChangeSource>;

export interface ChangeSource extends CdcRecordSource {
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
