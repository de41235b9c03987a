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

/** A record as a value of the stream; a throw fails the job naming topic, partition and offset. */
export type KafkaDeserializer<T> = (record: KafkaRecord) => T;

const utf8 = new TextDecoder('utf-8', { fatal: true });

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
