export { PostgresSink } from './postgres-sink.ts';
export type { PostgresSinkOptions, PostgresConnectionOptions } from './postgres-sink-options.ts';
export type { PostgresCommittable } from './postgres-committable.ts';
export type { DatabaseSinkMode } from '../database-sink/sink-mode.ts';
export type { ChangeRecordLike } from '../database-sink/change-record-like.ts';
export { RecordRefusedError } from '../database-sink/record-refused-error.ts';
export { ColumnMismatchError } from '../database-sink/column-mismatch-error.ts';
export type { DeadLetter } from '../../api/dead-letter.ts';
