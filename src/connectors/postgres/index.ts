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
