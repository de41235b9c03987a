/**
 * Why weir could not start on NATS: UNREACHABLE (no server answered), AUTHENTICATION (a server
 * refused the credentials), NO_JETSTREAM (a server answered but has JetStream off),
 * UNSUPPORTED_SERVER (older than 2.9, which lacks what the buckets need), NOT_READY (what
 * weir waited for at the start did not come within high-availability.nats.startup-timeout).
 */
export type NatsConnectFailure = 'UNREACHABLE' | 'AUTHENTICATION' | 'NO_JETSTREAM' | 'UNSUPPORTED_SERVER' | 'NOT_READY';

export class NatsConnectError extends Error {
  readonly reason: NatsConnectFailure;
  readonly servers: readonly string[];
  /** The configuration key the servers came from. */
  readonly key: string;
  constructor(reason: NatsConnectFailure, servers: readonly string[], key: string, problem: string, options?: { cause?: unknown }) {
    super(`NATS at ${servers.join(', ')} (${key}): ${problem}`, options);
    this.name = 'NatsConnectError';
    this.reason = reason;
    this.servers = servers;
    this.key = key;
  }
}
