// The private NATS cluster the HA tests run against: three JetStream nodes on free loopback ports,
// ready when the meta group has a leader; a killed node rejoins.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { connect } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';

describe('private NATS cluster', { timeout: 60_000 }, () => {
  let cluster: NatsCluster;
  before(async () => {
    cluster = await startNatsCluster();
  });
  after(() => cluster?.stop());

  test('three nodes on loopback ports other than 4222, JetStream with replicas 3', async () => {
    assert.equal(cluster.nodes.length, 3);
    assert.ok(cluster.nodes.every((n) => n.port !== 4222 && n.url.startsWith('nats://127.0.0.1:')));
    assert.match(cluster.version, /^2\.\d+\.\d+$/);
    const nc = await connect({ servers: cluster.servers.split(',') });
    try {
      assert.equal(nc.info?.version, cluster.version);
      const kv = await new Kvm(nc).create('fixture', { replicas: 3 });
      await kv.put('k', 'v');
      assert.equal((await kv.get('k'))?.string(), 'v');
      assert.equal((await kv.status()).replicas, 3);
    } finally {
      await nc.close();
    }
  });

  test('a killed node rejoins and its data directory stays until the cluster stops', async () => {
    const node = cluster.nodes[2]!;
    await node.kill();
    assert.equal(node.running, false);
    await cluster.ready();
    await node.start();
    assert.equal(node.running, true);
    assert.ok(existsSync(cluster.dir));
  });
});
