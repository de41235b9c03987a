// The high-availability keys: defaults, and the rules between them, checked when the configuration is built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildConfig, DEFAULT_CONFIG, SECRET_CONFIG_KEYS } from '../../src/config/configuration.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { natsSettings } from '../../src/ha/nats/nats-settings.ts';

test('defaults: no HA, cluster id default, a 15 s lease, replicas 3', () => {
  assert.equal(DEFAULT_CONFIG['high-availability.type'], 'none');
  assert.equal(DEFAULT_CONFIG['high-availability.cluster-id'], 'default');
  assert.equal(DEFAULT_CONFIG['high-availability.nats.lease-duration'], 15_000);
  assert.equal(DEFAULT_CONFIG['high-availability.nats.replicas'], 3);
});

test('rules between the keys name the key at fault', () => {
  const fails = (settings: Record<string, unknown>, key: string, problem: RegExp) =>
    assert.throws(() => buildConfig(settings), (e: unknown) => e instanceof ConfigError && e.key === key && problem.test(e.problem));
  fails({ 'high-availability.type': 'nats' }, 'high-availability.type', /needs high-availability\.nats\.servers/);
  fails({ 'high-availability.cluster-id': 'a/b' }, 'high-availability.cluster-id', /letters, digits/);
  fails({ 'high-availability.nats.password': 'x' }, 'high-availability.nats.password', /needs high-availability\.nats\.user/);
  fails({ 'high-availability.nats.token': 't', 'high-availability.nats.user': 'u' }, 'high-availability.nats.token', /set one of the two/);
  fails({ 'execution.checkpointing.dir': 'nats-obj://b/p' }, 'execution.checkpointing.dir', /needs state\.checkpoints\.nats\.servers or high-availability\.nats\.servers/);
  fails({ 'high-availability.nats.lease-duration': '100 ms' }, 'high-availability.nats.lease-duration', /at least 500/);
});

test('checkpoint storage takes its own servers when set, else the HA ones; passwords and tokens are secrets', () => {
  const both = buildConfig({ 'high-availability.nats.servers': 'nats://a:1, nats://b:2', 'state.checkpoints.nats.servers': 'nats://c:3' });
  assert.deepEqual(natsSettings(both, 'checkpoints').servers, ['nats://c:3']);
  assert.equal(natsSettings(both, 'checkpoints').serversKey, 'state.checkpoints.nats.servers');
  assert.deepEqual(natsSettings(both, 'high-availability').servers, ['nats://a:1', 'nats://b:2']);
  assert.ok(SECRET_CONFIG_KEYS.has('high-availability.nats.password') && SECRET_CONFIG_KEYS.has('high-availability.nats.token') && SECRET_CONFIG_KEYS.has('rest.token'));
});
