// The CDC source.
export { PostgresCdcSource, type PostgresCdcSplit, type PostgresEnumeratorState } from './postgres-cdc-source.ts';
export { PostgresCdcOptionError, type PostgresCdcOptions, type PostgresStartupMode } from './postgres-cdc-options.ts';
export type { PostgresChangeRecord, PgChangeSource as PostgresChangeSource, RowImage } from './pg-change-record.ts';
export {
  PostgresCdcError,
  WalLevelError,
  ReplicationPrivilegeError,
  SlotInUseError,
  SlotCreationBlockedError,
  type SlotCreationBlocker,
  SlotInvalidatedError,
  SlotPluginError,
  MissingObjectError,
  TableNotPublishedError,
  ReplicationStreamError,
  PublicationAfterSlotError,
  POSTGRES_CDC_FAILURES,
  type PostgresCdcFailure,
  type PostgresSite,
} from './postgres-cdc-error.ts';
export { PgTableSelectionError } from './postgres-table-catalog.ts';
export { PgUnsupportedChunkKeyError } from './pg-chunk-key.ts';

// The exactly-once sink.
export { PostgresSink } from './postgres-sink.ts';
export type { PostgresSinkOptions, PostgresConnectionOptions } from './postgres-sink-options.ts';
export type { PostgresCommittable } from './postgres-committable.ts';
export type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
export type { ChangeRecordLike } from '../database-sink/change-record-like.ts';
export { RecordRefusedError } from '../database-sink/record-refused-error.ts';
export { ColumnMismatchError } from '../database-sink/column-mismatch-error.ts';
export type { DeadLetter } from '../../api/dead-letter.ts';

// Types that the classes and functions exported here take or return, so that users of this
// entry point can name them (test/api/exported-types.test.ts checks every entry point).
export type { ResolvedPostgresCdcOptions } from './postgres-cdc-options.ts';
export type { CheckpointCompletion, EnumeratorContext, InputStatus, ReaderActivity, SourceOutput, SourceReader, SourceReaderContext, SplitEnumerator } from '../../api/source.ts';
export type { AddingTable, FinishedChunk, FinishedReport, FinishedTable, LogSplit, SnapshotSplit } from '../cdc/cdc-split.ts';
export type { CdcEnumeratorState } from '../cdc/cdc-split-enumerator.ts';
export type { CdcChangeRecord, CdcRecordSource } from '../cdc/change-record.ts';
export type { CdcColumn, CdcSchemaChange, CdcSchemaChangeKind, CdcSchemaChangeRecordBody, CdcTableSchema } from '../cdc/schema-change.ts';
export { CdcSchemaChangeError } from '../cdc/cdc-schema-error.ts';
export type { CommitRetryPolicy, Committer, PrecommitCheckpoint, PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
export type { OutputTag } from '../../api/output-tag.ts';
export type { SinkCheckpointing, SinkContext } from '../../api/sink.ts';
export type { LogFields, LogLevel, Logger } from '../../log/logger.ts';
export type { ChunkBound, ChunkKeyKind } from '../cdc/chunk-key.ts';
export type { TablePlan } from '../cdc/chunk-splitter.ts';
export type { StructField, TypeInfo } from '../../serialization/type-info.ts';
