/** A topic a Kafka connector names does not exist on the brokers. */
export class TopicNotFoundError extends Error {
  readonly topic: string;
  readonly bootstrapServers: string;
  /** A restart finds the topic missing again. */
  readonly unrecoverable = true;

  constructor(topic: string, bootstrapServers: string) {
    super(`Kafka topic '${topic}' does not exist on ${bootstrapServers}`);
    this.name = 'TopicNotFoundError';
    this.topic = topic;
    this.bootstrapServers = bootstrapServers;
  }
}
