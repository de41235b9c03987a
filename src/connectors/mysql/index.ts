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

// Types that the classes and functions exported here take or return, so that users of this
// entry point can name them (test/api/exported-types.test.ts checks every entry point).
export type { ResolvedCdcOptions } from './mysql-cdc-options.ts';
export type { CdcSplit, MySqlLogPosition } from './cdc-split.ts';
export type { CheckpointCompletion, EnumeratorContext, InputStatus, ReaderActivity, SourceOutput, SourceReader, SourceReaderContext, SplitEnumerator } from '../../api/source.ts';
export type { MySqlEnumeratorState } from './mysql-cdc-source.ts';
export type { CdcChangeRecord, CdcRecordSource } from '../cdc/change-record.ts';
export type { CdcColumn, CdcSchemaChange, CdcSchemaChangeKind, CdcSchemaChangeRecordBody, CdcTableSchema } from '../cdc/schema-change.ts';
export { CdcSchemaChangeError } from '../cdc/cdc-schema-error.ts';
export type { CommitRetryPolicy, Committer, PrecommitCheckpoint, PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
export type { OutputTag } from '../../api/output-tag.ts';
export type { SinkCheckpointing, SinkContext } from '../../api/sink.ts';
export type { AddingTable, FinishedChunk, FinishedReport, FinishedTable, LogSplit, SnapshotSplit } from '../cdc/cdc-split.ts';
export type { LogFields, LogLevel, Logger } from '../../log/logger.ts';
export type { CdcEnumeratorState } from '../cdc/cdc-split-enumerator.ts';
export type { StructField, TypeInfo } from '../../serialization/type-info.ts';
export type { ChunkBound, ChunkKeyKind } from '../cdc/chunk-key.ts';
export type { TablePlan } from '../cdc/chunk-splitter.ts';
