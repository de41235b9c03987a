/**
 * A record the source's deserializer could not read, as the source's `deserializationErrorOutput`
 * side output carries it instead of failing the job: where it is (topic, partition, offset), what
 * it held, and why it was refused. It is emitted in order with the partition's records, so it is
 * in a checkpoint exactly when its offset is behind the split's position: a restore neither loses
 * nor repeats it.
 */
export interface KafkaUnreadableRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The record's timestamp, ms since the epoch (also the side record's timestamp). */
  readonly timestamp: number;
  readonly key: Uint8Array | null;
  /** Its headers as bytes (a header repeated: its last value, as the deserializer saw it). */
  readonly headers: Readonly<Record<string, Uint8Array>>;
  /** Its value; null for a tombstone. */
  readonly value: Uint8Array | null;
  /** The deserializer's error message. */
  readonly reason: string;
}
