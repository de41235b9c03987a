import type { WeirConfig } from '../../config/configuration.ts';

/** How to reach NATS: servers, credentials and patience, from the high-availability.nats keys. */
export interface NatsSettings {
  readonly servers: readonly string[];
  /** The configuration key the servers came from, named in errors. */
  readonly serversKey: string;
  readonly user: string | null;
  readonly password: string | null;
  readonly token: string | null;
  readonly credsFile: string | null;
  readonly connectTimeoutMs: number;
  readonly replicas: number;
}

export function parseServers(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** The HA servers, or for checkpoint storage `state.checkpoints.nats.servers` when it is set. */
export function natsSettings(config: WeirConfig, purpose: 'high-availability' | 'checkpoints'): NatsSettings {
  const own = purpose === 'checkpoints' ? config['state.checkpoints.nats.servers'] : null;
  const serversKey = own !== null ? 'state.checkpoints.nats.servers' : 'high-availability.nats.servers';
  const list = own ?? config['high-availability.nats.servers'];
  if (list === null || parseServers(list).length === 0) throw new Error(`${serversKey} is not set: weir does not know where NATS is`);
  return {
    servers: parseServers(list),
    serversKey,
    user: config['high-availability.nats.user'],
    password: config['high-availability.nats.password'],
    token: config['high-availability.nats.token'],
    credsFile: config['high-availability.nats.creds-file'],
    connectTimeoutMs: config['high-availability.nats.connect-timeout'],
    replicas: config['high-availability.nats.replicas'],
  };
}
