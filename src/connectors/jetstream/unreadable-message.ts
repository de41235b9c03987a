/**
 * A message of the stream the source's deserializer could not read, as the source's
 * `deserializationErrorOutput` side output carries it instead of failing the job: where it is
 * (stream, subject, sequence), what it held, and why it was refused. It is emitted in order with
 * the split's records, so it is in a checkpoint exactly when its sequence is behind the split's
 * position: a restore neither loses nor repeats it.
 */
export interface JetStreamUnreadableMessage {
  readonly stream: string;
  readonly subject: string;
  readonly sequence: number;
  /** The time the stream stored it, ms since the epoch (also the side record's timestamp). */
  readonly timestamp: number;
  /** Its headers, each value joined with ',' when repeated. */
  readonly headers: Readonly<Record<string, string>>;
  readonly data: Uint8Array;
  /** The deserializer's error message. */
  readonly reason: string;
}
