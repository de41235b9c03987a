import type { CdcSourceEvent as CoreSourceEvent, CdcSplit as CoreSplit, FinishedChunk as CoreFinishedChunk, FinishedReport as CoreFinishedReport, FinishedTable as CoreFinishedTable, LogSplit } from '../cdc/cdc-split.ts';
import type { BinlogPosition } from './binlog-position.ts';

export type { SnapshotSplit } from '../cdc/cdc-split.ts';

/** Where in the binlog: a file and a byte offset in it (an event or transaction boundary). */
export type LogPosition = BinlogPosition;

/**
 * The MySQL dialect's log position: a file and offset, or, only where a reader starts from a
 * user's GTID (startup mode 'specific'), a GTID state alone.
 */
export type MySqlLogPosition = LogPosition | { readonly gtid: string; readonly file?: undefined; readonly pos?: undefined };

/** The CDC core's splits with MySQL's positions. */
export type FinishedChunk = CoreFinishedChunk<MySqlLogPosition>;
export type FinishedTable = CoreFinishedTable<MySqlLogPosition>;
export type BinlogSplit = LogSplit<MySqlLogPosition>;
export type FinishedReport = CoreFinishedReport<MySqlLogPosition>;
export type CdcSplit = CoreSplit<MySqlLogPosition>;
export type CdcSourceEvent = CoreSourceEvent<MySqlLogPosition>;
