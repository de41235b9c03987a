// Payload formats shared by the connectors that carry bytes (Kafka, NATS JetStream): weir's
// typed binary encoding, and the CDC change formats debezium-json and canal-json.
export type { ValueFormat } from './format.ts';
export { typedFormat } from './typed-format.ts';
export { debeziumJson, UNAVAILABLE_VALUE, type DebeziumJsonOptions, type DebeziumChange } from './debezium-json.ts';
export { canalJson, type CanalJsonOptions } from './canal-json.ts';
export type { ChangeLike, ChangeRow, ChangeSourceLike, DecodedChange, DecodedSource } from './change.ts';
export { FormatError, FORMAT_FAILURES, type FormatFailure } from './format-error.ts';
