import { readFile } from 'node:fs/promises';
import { connect, credsAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { NatsConnectError } from './nats-connect-error.ts';
import type { NatsSettings } from './nats-settings.ts';

/** What a user of a shared connection holds; release() closes the connection once nobody holds it. */
export interface NatsConnectionLease {
  readonly connection: NatsConnection;
  release(): Promise<void>;
}

/**
 * Connections shared in a process by everyone with the same settings (the JobMaster's checkpoint
 * storage and the in-thread TaskManagers' state writers, the HA services), counted, so that the
 * last release closes it and nothing keeps the process alive after the job.
 */
const shared = new Map<string, { connection: Promise<NatsConnection>; holders: number }>();

export async function acquireNatsConnection(settings: NatsSettings): Promise<NatsConnectionLease> {
  const key = JSON.stringify(settings);
  let entry = shared.get(key);
  if (!entry) {
    entry = { connection: connectNats(settings), holders: 0 };
    shared.set(key, entry);
    entry.connection.catch(() => shared.delete(key));
  }
  entry.holders++;
  const held = entry;
  let connection: NatsConnection;
  try {
    connection = await held.connection;
  } catch (e) {
    held.holders--;
    throw e;
  }
  let released = false;
  return {
    connection,
    release: async () => {
      if (released) return;
      released = true;
      if (--held.holders > 0) return;
      shared.delete(key);
      await connection.close().catch(() => {});
    },
  };
}

/**
 * Connects and checks that JetStream answers, or fails with a NatsConnectError that names the
 * servers and the key they came from. Once connected, the client reconnects without limit: while
 * NATS is away, leases are not renewed and checkpoints decline, and both come back with it.
 */
export async function connectNats(settings: NatsSettings): Promise<NatsConnection> {
  const { servers, serversKey } = settings;
  const auth = settings.credsFile !== null ? { authenticator: credsAuthenticator(await readCreds(settings)) } : settings.token !== null ? { token: settings.token } : settings.user !== null ? { user: settings.user, pass: settings.password ?? '' } : {};
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: [...servers], timeout: settings.connectTimeoutMs, maxReconnectAttempts: -1, reconnectTimeWait: 500, name: `weir ${process.pid}`, ...auth });
  } catch (e) {
    const text = `${(e as Error).message} ${(e as Error).name}`;
    const authProblem = /authoriz|authentic|permission/i.test(text);
    throw new NatsConnectError(authProblem ? 'AUTHENTICATION' : 'UNREACHABLE', servers, serversKey, authProblem ? `the server refused the credentials: ${(e as Error).message}` : `no server could be reached within ${settings.connectTimeoutMs} ms: ${(e as Error).message}`, { cause: e });
  }
  const version = nc.info?.version ?? '0.0.0';
  const [major, minor] = version.split('.').map(Number) as [number, number];
  if (major < 2 || (major === 2 && minor < 9)) {
    await nc.close();
    throw new NatsConnectError('UNSUPPORTED_SERVER', servers, serversKey, `server ${nc.info?.server_name ?? ''} is version ${version}; weir needs 2.9 or newer`);
  }
  try {
    await (await jetstreamManager(nc, { timeout: settings.connectTimeoutMs })).getAccountInfo();
  } catch (e) {
    await nc.close();
    throw new NatsConnectError('NO_JETSTREAM', servers, serversKey, `JetStream does not answer (start nats-server with -js, in a cluster with a meta leader): ${(e as Error).message}`, { cause: e });
  }
  return nc;
}

/** The server version this connection talks to (2.9 lacks per-key TTLs: leases are judged by readers' clocks). */
export function serverVersion(nc: NatsConnection): string {
  return nc.info?.version ?? 'unknown';
}

async function readCreds(settings: NatsSettings): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readFile(settings.credsFile!));
  } catch (e) {
    throw new NatsConnectError('AUTHENTICATION', settings.servers, settings.serversKey, `high-availability.nats.creds-file ${settings.credsFile} cannot be read: ${(e as Error).message}`, { cause: e });
  }
}
