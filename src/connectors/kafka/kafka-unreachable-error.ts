/** No broker of the bootstrap list answered at start. */
export class KafkaUnreachableError extends Error {
  readonly bootstrapServers: string;

  constructor(bootstrapServers: string, cause: unknown) {
    super(`no Kafka broker of ${bootstrapServers} could be reached: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'KafkaUnreachableError';
    this.bootstrapServers = bootstrapServers;
  }
}
