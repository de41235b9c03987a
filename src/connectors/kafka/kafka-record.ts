import { canalJson } from '../../formats/canal-json.ts';
import type { DecodedChange } from '../../formats/change.ts';
import { debeziumJson, type DebeziumChange } from '../../formats/debezium-json.ts';
import { typedFormat } from '../../formats/typed-format.ts';
import type { Type } from '../../serialization/type-info.ts';

/** A Kafka record as the deserializer sees it. */
export interface KafkaRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The record's timestamp (create or log-append time), ms since the epoch. */
  readonly timestamp: number;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: ReadonlyMap<string, Uint8Array>;
}

/**
 * A record as a value of the stream; a throw fails the job naming topic, partition and offset.
 * `undefined` skips the record (its offset still counts as read): a tombstone, say.
 */
export type KafkaDeserializer<T> = (record: KafkaRecord) => T | undefined;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A format's deserializer of values; a record without a value (a tombstone, as Debezium writes after a delete) is skipped. */
function ofValue<T>(deserialize: (bytes: Uint8Array) => T): KafkaDeserializer<T> {
  return (r) => (r.value === null ? undefined : deserialize(r.value));
}

/** The common deserializers: the value as UTF-8 text, as JSON, as bytes, or the whole record with its value as text. */
export const KafkaDeserializers = {
  string: (): KafkaDeserializer<string> => (r) => (r.value === null ? '' : utf8.decode(r.value)),
  json: <T = unknown>(): KafkaDeserializer<T> => (r) => JSON.parse(r.value === null ? 'null' : utf8.decode(r.value)) as T,
  bytes: (): KafkaDeserializer<Uint8Array | null> => (r) => r.value,
  /** Key, value (text), headers (text), topic, partition, offset and timestamp. */
  record: (): KafkaDeserializer<KafkaTextRecord> => (r) => ({
    topic: r.topic,
    partition: r.partition,
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.key === null ? null : utf8.decode(r.key),
    value: r.value === null ? null : utf8.decode(r.value),
    headers: Object.fromEntries([...r.headers].map(([k, v]) => [k, utf8.decode(v)])),
  }),
  /** The value in weir's binary encoding of a declared type (KafkaSerializers.typed's bytes). */
  typed: <T>(type: Type<T>): KafkaDeserializer<T> => ofValue(typedFormat(type).deserialize),
  /** Debezium change events (the envelope, with or without Connect's schema); tombstones are skipped. */
  debeziumJson: (): KafkaDeserializer<DebeziumChange> => ofValue(debeziumJson().deserialize),
  /** Canal messages: every row of a message, in order (flatMap them); tombstones are skipped. */
  canalJson: (): KafkaDeserializer<DecodedChange[]> => ofValue(canalJson().deserialize),
};

export interface KafkaTextRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: Readonly<Record<string, string>>;
}
