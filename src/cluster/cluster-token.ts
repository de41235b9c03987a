import { readFileSync } from 'node:fs';
import type { WeirConfig } from '../config/configuration.ts';
import { ConfigError } from '../config/config-error.ts';

const LOOPBACK = /^(?:127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/i;

export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * The cluster secret: security.cluster.token, or the first line of security.cluster.token-file.
 * Required as soon as an address of the cluster is beyond loopback (`beyond` names it).
 */
export function clusterToken(config: WeirConfig, beyond: string | undefined): string | null {
  let token = config['security.cluster.token'];
  const file = config['security.cluster.token-file'];
  if (token === null && file !== null) {
    try {
      token = readFileSync(file, 'utf8').split('\n')[0]!.trim();
    } catch (e) {
      throw new ConfigError('security.cluster.token-file', file, `cannot read it: ${(e as Error).message}`);
    }
    if (token === '') throw new ConfigError('security.cluster.token-file', file, 'its first line is empty');
  }
  if (token === null && beyond !== undefined) {
    throw new ConfigError('security.cluster.token', null, `${beyond} is beyond loopback: set security.cluster.token (or security.cluster.token-file), which every TaskManager and client must then present`);
  }
  return token;
}
