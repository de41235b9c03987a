/** A record the source's deserializer could not read: topic, partition and offset name it. */
export class KafkaDeserializationError extends Error {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The same record fails again on every replay. */
  readonly unrecoverable = true;

  constructor(topic: string, partition: number, offset: number, cause: unknown) {
    super(`Kafka record at ${topic}-${partition} offset ${offset} cannot be deserialized: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'KafkaDeserializationError';
    this.topic = topic;
    this.partition = partition;
    this.offset = offset;
  }
}
