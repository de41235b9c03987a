/** A message of the stream the source's deserializer could not read: the stream, its sequence and subject name it. */
export class JetStreamDeserializationError extends Error {
  readonly stream: string;
  readonly sequence: number;
  readonly subject: string;
  /** The same message fails again on every replay. */
  readonly unrecoverable = true;

  constructor(stream: string, sequence: number, subject: string, cause: unknown) {
    super(`JetStream stream '${stream}' message at sequence ${sequence} (subject ${subject}) cannot be deserialized: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'JetStreamDeserializationError';
    this.stream = stream;
    this.sequence = sequence;
    this.subject = subject;
  }
}
