/** The stream a JetStream connector names does not exist on the servers (and the connector was not asked to create it). */
export class StreamNotFoundError extends Error {
  readonly stream: string;
  readonly servers: string;
  /** A restart finds the stream missing again. */
  readonly unrecoverable = true;

  constructor(stream: string, servers: string, hint: string) {
    super(`JetStream stream '${stream}' does not exist on ${servers}: ${hint}`);
    this.name = 'StreamNotFoundError';
    this.stream = stream;
    this.servers = servers;
  }
}
