// The source.
export { KafkaSource } from './kafka-source.ts';
export type { KafkaSourceOptions, KafkaStartingOffsets } from './kafka-source-options.ts';
export type { KafkaSplit } from './kafka-split.ts';
export type { KafkaEnumeratorState } from './kafka-split-enumerator.ts';
export { KafkaDeserializers } from './kafka-record.ts';
export { KafkaSerializers, type KafkaSerializer } from './kafka-serializers.ts';
export type { KafkaDeserializer, KafkaRecord, KafkaTextRecord } from './kafka-record.ts';
export { KafkaDeserializationError } from './kafka-deserialization-error.ts';
export type { KafkaUnreadableRecord } from './kafka-unreadable-record.ts';

export type { KafkaConnectionOptions } from './kafka-connection.ts';
export { KafkaUnreachableError } from './kafka-unreachable-error.ts';
export { TopicNotFoundError } from './topic-not-found-error.ts';
export type { SASLOptions } from 'kafkajs';

// What the classes above take and return, from the core API.
export type { Boundedness, CheckpointCompletion, EnumeratorContext, InputStatus, ReaderActivity, SplitEnumerator, SourceOutput, SourceReader, SourceReaderContext } from '../../api/source.ts';
export type { OutputTag } from '../../api/output-tag.ts';
export type { StructField, TypeInfo } from '../../serialization/type-info.ts';

// The sink.
export { KafkaSink } from './kafka-sink.ts';
export type { KafkaSinkOptions, KafkaDeliveryGuarantee, KafkaPartitioner, PartitionTarget } from './kafka-sink-options.ts';
export { PartitionOutOfRangeError } from './partition-out-of-range-error.ts';
export type { FirstOffsets, KafkaCommittable, KafkaTransactionEvent } from './kafka-committable.ts';
export { TransactionTimeoutTooShortError } from './transaction-timeout-too-short-error.ts';
export type { LogFields, LogLevel, Logger } from '../../log/logger.ts';
export type { SinkCheckpointing, SinkContext } from '../../api/sink.ts';
export type { CommitRetryPolicy, Committer, PrecommitCheckpoint, PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
export type { DeadLetter } from '../../api/dead-letter.ts';

// Payload formats (shared with the JetStream connector).
export { typedFormat, debeziumJson, canalJson, FormatError, FORMAT_FAILURES, UNAVAILABLE_VALUE } from '../../formats/index.ts';
export type { ValueFormat, DebeziumJsonOptions, DebeziumChange, CanalJsonOptions, ChangeLike, ChangeRow, ChangeSourceLike, DecodedChange, DecodedSource, FormatFailure } from '../../formats/index.ts';
export type { Type } from '../../serialization/type-info.ts';
