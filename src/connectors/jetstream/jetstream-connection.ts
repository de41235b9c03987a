import { connect, type NatsConnection } from '@nats-io/transport-node';

/** Where a JetStream connector connects: the servers, and the credentials if the servers ask for them. */
export interface JetStreamConnectionOptions {
  /** One URL, several comma-separated, or a list: nats://host:4222. */
  readonly servers: string | readonly string[];
  readonly user?: string;
  readonly password?: string;
  readonly token?: string;
  /** How long the first connection may take (ms). Unset: 10 s. */
  readonly connectTimeoutMs?: number;
}

/** The servers as a list. */
export function serverList(o: JetStreamConnectionOptions): string[] {
  return (typeof o.servers === 'string' ? o.servers.split(',') : [...o.servers]).map((s) => s.trim()).filter((s) => s.length > 0);
}

/** The servers as one string for messages. */
export function describeServers(o: JetStreamConnectionOptions): string {
  return serverList(o).join(',');
}

/**
 * A connection of its own for one reader, writer or committer. It reconnects without limit: while
 * NATS is away, reads wait and commits are retried (the committer's backoff), and both go on
 * with it, on whichever node of the cluster answers.
 */
export async function connectJetStream(o: JetStreamConnectionOptions, name: string): Promise<NatsConnection> {
  const auth = o.token !== undefined ? { token: o.token } : o.user !== undefined ? { user: o.user, pass: o.password ?? '' } : {};
  return connect({ servers: serverList(o), timeout: o.connectTimeoutMs ?? 10_000, maxReconnectAttempts: -1, reconnectTimeWait: 250, name, ...auth });
}
