// The source.
export { JetStreamSource } from './jetstream-source.ts';
export type { JetStreamSourceOptions, JetStreamMessageInfo, JetStreamStartingPosition } from './jetstream-source-options.ts';
export type { JetStreamSplit } from './jetstream-split.ts';
export type { JetStreamEnumeratorState } from './jetstream-split-enumerator.ts';
export { JetStreamDeserializationError } from './deserialization-error.ts';
export type { JetStreamUnreadableMessage } from './unreadable-message.ts';
export type { OutputTag } from '../../api/output-tag.ts';
export type { StructField, TypeInfo } from '../../serialization/type-info.ts';

// The exactly-once sink.
export { JetStreamSink } from './jetstream-sink.ts';
export type { JetStreamSinkOptions, JetStreamDeliveryGuarantee } from './jetstream-sink-options.ts';
export type { JetStreamCommittable, StagedMessage } from './jetstream-committable.ts';
export { DuplicateWindowTooShortError } from './duplicate-window-too-short-error.ts';
export { DuplicateWindowExceededError } from './duplicate-window-exceeded-error.ts';

export type { JetStreamConnectionOptions } from './jetstream-connection.ts';
export type { CreateStreamOptions } from './stream-lookup.ts';
export { StreamNotFoundError } from './stream-not-found-error.ts';

// What the classes above take and return, from the core API.
export type { Boundedness, EnumeratorContext, InputStatus, SplitEnumerator, CheckpointCompletion, ReaderActivity, SourceOutput, SourceReader, SourceReaderContext } from '../../api/source.ts';
export type { LogFields, LogLevel, Logger } from '../../log/logger.ts';
export type { DeadLetter } from '../../api/dead-letter.ts';
export type { SinkCheckpointing, SinkContext } from '../../api/sink.ts';
export type { CommitRetryPolicy, Committer, PrecommitCheckpoint, PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';

// Payload formats (shared with the Kafka connector): `serializer: debeziumJson().serialize`, `deserializer: typedFormat(type).deserialize`.
export { typedFormat, debeziumJson, canalJson, FormatError, FORMAT_FAILURES, UNAVAILABLE_VALUE } from '../../formats/index.ts';
export type { ValueFormat, DebeziumJsonOptions, DebeziumChange, CanalJsonOptions, ChangeLike, ChangeRow, ChangeSourceLike, DecodedChange, DecodedSource, FormatFailure } from '../../formats/index.ts';
export type { Type } from '../../serialization/type-info.ts';
