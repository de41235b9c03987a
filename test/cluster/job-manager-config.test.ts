// GET /jobmanager/config as cluster-views builds it: Flink's array of {key, value}, secrets left
// out (NATS credentials, in their own keys and inside server URLs), and with high availability
// the leader's facts under the high-availability.status keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HA_STATUS_KEYS, jobManagerConfig } from '../../src/cluster/cluster-views.ts';
import { buildConfig } from '../../src/config/configuration.ts';

const ha = {
  'high-availability.type': 'nats',
  'high-availability.cluster-id': 'prod',
  'high-availability.nats.servers': 'nats://alice:s3cret@n1:4222,nats://t0ken@n2:4222,nats://n3:4222',
  'high-availability.nats.user': 'alice',
  'high-availability.nats.password': 'hunter2',
  'rest.token': 'rest-secret',
};

test('with high availability: the settings, the role, the leader and its epoch; no secret anywhere', () => {
  const view = jobManagerConfig(buildConfig(ha), { role: 'standby', leaderAddress: 'http://10.0.0.2:8081', leaderEpoch: 7 });
  const config = new Map(view.map((c) => [c.key, c.value]));
  assert.equal(config.get('high-availability.type'), 'nats');
  assert.equal(config.get('high-availability.cluster-id'), 'prod');
  assert.equal(config.get(HA_STATUS_KEYS.role), 'standby');
  assert.equal(config.get(HA_STATUS_KEYS.leaderAddress), 'http://10.0.0.2:8081');
  assert.equal(config.get(HA_STATUS_KEYS.leaderEpoch), '7');
  assert.equal(config.get('high-availability.nats.servers'), 'nats://alice:***@n1:4222,nats://***@n2:4222,nats://n3:4222');
  assert.ok(!config.has('high-availability.nats.password') && !config.has('rest.token'));
  const all = JSON.stringify(view);
  for (const secret of ['hunter2', 's3cret', 't0ken', 'rest-secret']) assert.ok(!all.includes(secret), `${secret} is shown`);
});

test('no leader known yet: the role only', () => {
  const view = jobManagerConfig(buildConfig(ha), { role: 'standby', leaderAddress: null, leaderEpoch: null });
  assert.deepEqual(
    view.filter((c) => c.key.startsWith('high-availability.status.')),
    [{ key: HA_STATUS_KEYS.role, value: 'standby' }],
  );
});

test('without high availability: type none and no status keys', () => {
  const view = jobManagerConfig(buildConfig({}));
  assert.equal(view.find((c) => c.key === 'high-availability.type')?.value, 'none');
  assert.deepEqual(view.filter((c) => c.key.startsWith('high-availability.status.')), []);
});
