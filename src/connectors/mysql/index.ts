// The CDC source (the integrator's part of this directory).
export { MySqlCdcSource } from './mysql-cdc-source.ts';
export { CdcOptionError, type MySqlCdcOptions, type StartupMode } from './mysql-cdc-options.ts';
export type { ChangeRecord, ChangeSource, RowImage } from './change-record.ts';

// What the binlog reader reports and the tables it describes. The reader itself (BinlogClient),
// the GTID strategies and the column codec are not exported: their signatures carry Node's Buffer
// and mysql2's types, which a user's project could then not compile without @types/node.
export type { MySqlConnectionOptions } from './mysql-connection-options.ts';
export type { BinlogEvent, RowsEvent, CommitEvent, DdlEvent, RotateEvent, Row } from './binlog-event.ts';
export { compareBinlogPositions, formatBinlogPosition, BinlogPositionError, type BinlogPosition, type BinlogStart } from './binlog-position.ts';
export { BinlogError, BinlogConfigError, BinlogServerError, BinlogSchemaError, BinlogDecodeError, type BinlogErrorSite } from './binlog-error.ts';
export { TableSchemaCache, TableSchemaError, type TableSchema, type ColumnSchema } from './table-schema.ts';
export { checkBinlogSettings } from './server-check.ts';
export { mysql2Runner, type QueryRunner } from './query-runner.ts';

// The exactly-once sink (XA).
export { MySqlSink } from './mysql-sink.ts';
export type { MySqlSinkOptions } from './mysql-sink-options.ts';
export type { MySqlCommittable } from './mysql-committable.ts';
export type { DeadLetter } from '../../api/dead-letter.ts';
