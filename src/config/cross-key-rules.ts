import { ConfigError } from './config-error.ts';
import type { WeirConfig } from './configuration.ts';

/** Rules between keys, checked on the merged configuration; a rule on one key's value is declared with the key. */
export function checkCrossKeyRules(c: WeirConfig): void {
  const backlog = c['execution.checkpointing.interval-during-backlog'];
  const interval = c['execution.checkpointing.interval'];
  if (backlog !== null && backlog !== 0 && interval !== null && backlog < interval) {
    throw new ConfigError(
      'execution.checkpointing.interval-during-backlog',
      backlog,
      `must be 0 or at least execution.checkpointing.interval (${interval} ms)`,
    );
  }
  if (c['heartbeat.timeout'] <= c['heartbeat.interval']) {
    throw new ConfigError('heartbeat.timeout', c['heartbeat.timeout'], `must be longer than heartbeat.interval (${c['heartbeat.interval']} ms)`);
  }
  if (c['rest.token-required-for-reads'] === true && c['rest.token'] === null) {
    throw new ConfigError('rest.token-required-for-reads', true, 'needs rest.token, the token reads must then present');
  }
  checkHighAvailability(c);
  if (c['security.ssl.internal.enabled']) {
    for (const k of ['security.ssl.internal.key', 'security.ssl.internal.cert', 'security.ssl.internal.trust'] as const) {
      if (c[k] === null) throw new ConfigError(k, null, 'security.ssl.internal.enabled is true: set the key, the certificate and the trusted authority (PEM files)');
    }
  }
  if (c['execution.checkpointing.unaligned.enabled']) {
    if (c['execution.checkpointing.mode'] !== 'exactly-once') {
      throw new ConfigError('execution.checkpointing.unaligned.enabled', true, 'unaligned checkpoints need mode exactly-once');
    }
    if (c['execution.checkpointing.max-concurrent-checkpoints'] !== 1) {
      throw new ConfigError('execution.checkpointing.unaligned.enabled', true, 'unaligned checkpoints need max-concurrent-checkpoints 1');
    }
  }
}

function checkHighAvailability(c: WeirConfig): void {
  if (c['high-availability.type'] === 'nats' && c['high-availability.nats.servers'] === null) {
    throw new ConfigError('high-availability.type', 'nats', 'needs high-availability.nats.servers (the NATS servers, comma-separated)');
  }
  if (c['high-availability.nats.password'] !== null && c['high-availability.nats.user'] === null) {
    throw new ConfigError('high-availability.nats.password', '(secret)', 'needs high-availability.nats.user');
  }
  if (c['high-availability.nats.token'] !== null && c['high-availability.nats.user'] !== null) {
    throw new ConfigError('high-availability.nats.token', '(secret)', 'is an alternative to high-availability.nats.user and password: set one of the two');
  }
  const dir = c['execution.checkpointing.dir'];
  if (dir !== null && dir.startsWith('nats-obj:') && c['state.checkpoints.nats.servers'] === null && c['high-availability.nats.servers'] === null) {
    throw new ConfigError('execution.checkpointing.dir', dir, 'checkpoint storage on NATS needs state.checkpoints.nats.servers or high-availability.nats.servers');
  }
}
