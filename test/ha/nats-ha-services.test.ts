// The HA services on a private 3-node NATS JetStream cluster (replicas 3): the same contract as in
// memory, plus what only NATS has: the server version, buckets of another cluster or layout
// refused by name, credentials, and an unreachable NATS named in the error.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { buildConfig } from '../../src/config/configuration.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { BucketLayoutError } from '../../src/ha/bucket-layout-error.ts';
import { createHighAvailabilityServices } from '../../src/ha/create-high-availability-services.ts';
import { connectNats } from '../../src/ha/nats/nats-connections.ts';
import { NatsConnectError } from '../../src/ha/nats/nats-connect-error.ts';
import { connectNatsHighAvailabilityServices } from '../../src/ha/nats/nats-high-availability-services.ts';
import { natsSettings } from '../../src/ha/nats/nats-settings.ts';
import { haServicesContract, RecordingContender } from '../fixtures/ha-contract.ts';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

let cluster: NatsCluster;
let clusters = 0;
const LEASE_MS = 2000;

before(async () => {
  cluster = await startNatsCluster();
});
after(() => cluster?.stop());

const haConfig = (clusterId: string, extra: Record<string, unknown> = {}) =>
  buildConfig({ 'high-availability.type': 'nats', 'high-availability.nats.servers': cluster.servers, 'high-availability.cluster-id': clusterId, 'high-availability.nats.lease-duration': LEASE_MS, ...extra });

haServicesContract('NATS JetStream, 3 nodes, replicas 3', async (o) => {
  const leaseMs = o?.leaseMs ?? LEASE_MS;
  const config = haConfig(`contract-${++clusters}`, { 'high-availability.nats.lease-duration': leaseMs });
  return {
    leaseMs,
    node: async () => {
      // Each "JobManager" has a connection of its own, so that one can be cut off alone.
      const connection = await connectNats(natsSettings(config, 'high-availability'));
      const services = await connectNatsHighAvailabilityServices(config, silentLogger, { connection });
      const stop = services.stop.bind(services);
      services.stop = async (reason) => {
        await stop(reason);
        await connection.close().catch(() => {});
      };
      return { services, cutOff: () => connection.close() };
    },
  };
});

describe('HA services on NATS: what only NATS has', { timeout: 60_000 }, () => {
  test('the cluster runs the machine’s nats-server (2.9: no per-key TTL, so leases are judged by readers’ clocks)', async () => {
    const nc = await connectNats(natsSettings(haConfig('version'), 'high-availability'));
    try {
      assert.equal(nc.info?.version, cluster.version);
      const [major, minor] = cluster.version.split('.').map(Number) as [number, number];
      assert.ok(major === 2 && minor >= 9, `nats-server ${cluster.version}`);
    } finally {
      await nc.close();
    }
  });

  test('the records live in a replicated bucket of the cluster id, readable with any NATS client', async () => {
    const services = await createHighAvailabilityServices(haConfig('visible'), silentLogger);
    const election = services.leaderElection('jobmanager');
    const c = new RecordingContender();
    election.startContending(c);
    const lead = await c.until(() => c.grants[0], LEASE_MS * 3, 'leadership');
    await election.confirmLeadership(lead.sessionId, 'http://127.0.0.1:8081');
    const nc = await connect({ servers: cluster.servers.split(',') });
    try {
      const kv = await new Kvm(nc).open('weir-ha-visible');
      assert.equal((await kv.status()).replicas, 3);
      const record = (await kv.get('leader.jobmanager'))?.json<{ epoch: number; address: string }>();
      assert.equal(record?.epoch, lead.epoch);
      assert.equal(record?.address, 'http://127.0.0.1:8081');
      assert.deepEqual({ ...(await kv.get('weir.layout'))?.json<{ clusterId: string; layout: number }>(), createdAt: 0 }, { clusterId: 'visible', layout: 1, createdAt: 0 });
    } finally {
      await nc.close();
      await election.stop(SHUTDOWN);
      await services.stop(SHUTDOWN);
    }
  });

  test('a bucket written by another cluster id, or by another layout version, is refused by name', async () => {
    const first = await createHighAvailabilityServices(haConfig('owner', { 'high-availability.nats.bucket': 'shared-ha' }), silentLogger);
    await first.stop(SHUTDOWN);
    await assert.rejects(createHighAvailabilityServices(haConfig('intruder', { 'high-availability.nats.bucket': 'shared-ha' }), silentLogger), (e: unknown) => {
      assert.ok(e instanceof BucketLayoutError, String(e));
      assert.equal(e.reason, 'OTHER_CLUSTER');
      assert.equal(e.bucket, 'shared-ha');
      assert.match(e.message, /NATS bucket 'shared-ha' refused: it belongs to cluster 'owner', this is cluster 'intruder'/);
      return true;
    });
    const nc = await connect({ servers: cluster.servers.split(',') });
    try {
      const kv = await new Kvm(nc).create('weir-ha-future', { replicas: 3 });
      await kv.put('weir.layout', JSON.stringify({ layout: 99, clusterId: 'future', createdAt: 1 }));
    } finally {
      await nc.close();
    }
    await assert.rejects(createHighAvailabilityServices(haConfig('future'), silentLogger), (e: unknown) => e instanceof BucketLayoutError && e.reason === 'INCOMPATIBLE_LAYOUT' && /layout version 99, this weir uses version 1/.test(e.message));
  });

  test('NATS unreachable at start: retried until high-availability.nats.startup-timeout, then an error naming the servers, the key and what it waited for', async () => {
    const servers = 'nats://127.0.0.1:9,nats://127.0.0.1:10';
    const started = Date.now();
    const config = buildConfig({ 'high-availability.type': 'nats', 'high-availability.nats.servers': servers, 'high-availability.nats.connect-timeout': '1 s', 'high-availability.nats.startup-timeout': '2 s' });
    await assert.rejects(createHighAvailabilityServices(config, silentLogger), (e: unknown) => {
      assert.ok(e instanceof NatsConnectError, String(e));
      assert.equal(e.reason, 'NOT_READY');
      assert.deepEqual(e.servers, ['nats://127.0.0.1:9', 'nats://127.0.0.1:10']);
      assert.match(e.message, /^NATS at nats:\/\/127\.0\.0\.1:9, nats:\/\/127\.0\.0\.1:10 \(high-availability\.nats\.servers\): not ready within 2000 ms \(high-availability\.nats\.startup-timeout\), \d+ attempts; waited for a server to connect to/);
      assert.ok(e.cause instanceof NatsConnectError && e.cause.reason === 'UNREACHABLE', 'the last attempt found no server');
      assert.match(e.message, /no server could be reached/);
      return true;
    });
    assert.ok(Date.now() - started >= 2000, 'it waited');
    assert.ok(Date.now() - started < 15_000);
  });
});

describe('HA services on NATS with credentials', { timeout: 60_000 }, () => {
  let secured: NatsCluster;
  before(async () => {
    secured = await startNatsCluster({ nodes: 1, auth: { user: 'weir', password: 's3cret' } });
  });
  after(() => secured?.stop());

  test('user and password are used; wrong ones fail as AUTHENTICATION, naming the servers', async () => {
    const base = { 'high-availability.type': 'nats', 'high-availability.nats.servers': secured.servers, 'high-availability.nats.replicas': 1, 'high-availability.nats.connect-timeout': '2 s' };
    const services = await createHighAvailabilityServices(buildConfig({ ...base, 'high-availability.nats.user': 'weir', 'high-availability.nats.password': 's3cret' }), silentLogger);
    await services.stop(SHUTDOWN);
    await assert.rejects(createHighAvailabilityServices(buildConfig({ ...base, 'high-availability.nats.user': 'weir', 'high-availability.nats.password': 'wrong' }), silentLogger), (e: unknown) => e instanceof NatsConnectError && e.reason === 'AUTHENTICATION' && e.message.includes(secured.servers));
  });

  test('replicas 3 on a single server: the error says to set high-availability.nats.replicas: 1', async () => {
    const config = buildConfig({ 'high-availability.type': 'nats', 'high-availability.nats.servers': secured.servers, 'high-availability.nats.user': 'weir', 'high-availability.nats.password': 's3cret', 'high-availability.cluster-id': 'single' });
    await assert.rejects(createHighAvailabilityServices(config, silentLogger), /NATS bucket 'weir-ha-single': cannot be created with 3 replicas .*high-availability\.nats\.replicas: 1/);
  });
});
