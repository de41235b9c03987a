// The CDC source (the integrator's part of this directory).
export { MySqlCdcSource } from './mysql-cdc-source.ts';
export { CdcOptionError, type MySqlCdcOptions, type StartupMode } from './mysql-cdc-options.ts';
export type { ChangeRecord, ChangeSource, RowImage } from './change-record.ts';

// The binlog reader and the column codec it shares with snapshot SELECTs.
export type { MySqlConnectionOptions } from './mysql-connection-options.ts';
export { BinlogClient, type BinlogClientOptions } from './binlog-client.ts';
export type { BinlogEvent, RowsEvent, CommitEvent, DdlEvent, RotateEvent, Row } from './binlog-event.ts';
export { compareBinlogPositions, formatBinlogPosition, BinlogPositionError, type BinlogPosition, type BinlogStart } from './binlog-position.ts';
export { BinlogError, BinlogConfigError, BinlogServerError, BinlogSchemaError, BinlogDecodeError, type BinlogErrorSite } from './binlog-error.ts';
export { detectGtidStrategy, type GtidStrategy, type GtidTracker } from './gtid-strategy.ts';
export { MariaDbGtidStrategy } from './mariadb-gtid-strategy.ts';
export { MySqlGtidStrategy } from './mysql-gtid-strategy.ts';
export { TableSchemaCache, TableSchemaError, type TableSchema, type ColumnSchema } from './table-schema.ts';
export { snapshotTypeCast, prepareSnapshotConnection, SNAPSHOT_SESSION_STATEMENTS } from './column-codec.ts';
export { checkBinlogSettings } from './server-check.ts';
export { mysql2Runner, type QueryRunner } from './query-runner.ts';
