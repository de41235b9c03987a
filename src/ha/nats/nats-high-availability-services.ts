import type { NatsConnection } from '@nats-io/transport-node';
import type { WeirConfig } from '../../config/configuration.ts';
import type { Logger } from '../../log/logger.ts';
import { ensureKeyValueLayout } from '../bucket-layout.ts';
import { KeyValueHighAvailabilityServices } from '../key-value-high-availability-services.ts';
import { openKeyValueBucket, openObjectBucket } from './nats-buckets.ts';
import { NatsBlobStore } from './nats-blob-store.ts';
import { acquireNatsConnection, serverVersion } from './nats-connections.ts';
import { NatsKeyValueStore } from './nats-key-value-store.ts';
import { natsSettings, type NatsSettings } from './nats-settings.ts';
import { waitForNats, type StartupStep } from './nats-startup.ts';
import { ensureObjectStoreLayout } from './object-store-layout.ts';

/** A lease whose renew deadline outlasts a stream's leader election after a node loss (lease-leader-election.ts). */
const SHORTEST_SAFE_LEASE_MS = 10_000;

/** The HA records' bucket of a cluster: `high-availability.nats.bucket`, or `weir-ha-<cluster-id>`. */
export function haBucketName(config: WeirConfig): string {
  return config['high-availability.nats.bucket'] ?? `weir-ha-${config['high-availability.cluster-id']}`;
}

/**
 * HA services on NATS JetStream: the records in a key-value bucket (RAFT-replicated with
 * high-availability.nats.replicas), job bundles in an object store beside it. While NATS is not
 * ready (a cluster started at the same moment, still electing its leaders) it waits and retries,
 * saying what it waits for, up to high-availability.nats.startup-timeout (nats-startup.ts); fails
 * at once, by name, when the credentials are refused or the bucket belongs to another cluster or
 * layout.
 */
export async function connectNatsHighAvailabilityServices(
  config: WeirConfig,
  log: Logger,
  /** A connection of the caller's (tests that play several JobManagers in one process); it stays the caller's to close. */
  own?: { readonly connection: NatsConnection },
): Promise<KeyValueHighAvailabilityServices> {
  const settings = natsSettings(config, 'high-availability');
  return waitForNats(settings, config['high-availability.nats.startup-timeout'], log, (step) => openServices(config, settings, log, step, own));
}

async function openServices(config: WeirConfig, settings: NatsSettings, log: Logger, step: StartupStep, own: { readonly connection: NatsConnection } | undefined): Promise<KeyValueHighAvailabilityServices> {
  const clusterId = config['high-availability.cluster-id'];
  const leaseMs = config['high-availability.nats.lease-duration'];
  step('a server to connect to, with JetStream');
  const lease = own ? { connection: own.connection, release: async () => {} } : await acquireNatsConnection(settings);
  try {
    const nc = lease.connection;
    const bucket = haBucketName(config);
    // A store operation must give up well within the lease, so that a renewal can be retried in it.
    const opTimeout = Math.max(500, Math.min(5000, Math.round(leaseMs / 4)));
    step(`key-value bucket '${bucket}' (its stream and the stream's leader)`);
    const kv = await openKeyValueBucket(nc, bucket, settings.replicas, opTimeout);
    const store = new NatsKeyValueStore(kv, `NATS bucket '${bucket}' at ${settings.servers.join(', ')}`);
    step(`the layout marker of bucket '${bucket}'`);
    await ensureKeyValueLayout(store, bucket, clusterId);
    const blobsBucket = `${bucket}-blobs`;
    step(`object store '${blobsBucket}' and its layout marker`);
    await openObjectBucket(nc, blobsBucket, settings.replicas, true);
    await ensureObjectStoreLayout(nc, blobsBucket, clusterId, 'write');
    log.info(`high availability on NATS ${serverVersion(nc)}: bucket '${bucket}', lease ${leaseMs} ms`, { clusterId, servers: settings.servers });
    if (leaseMs < SHORTEST_SAFE_LEASE_MS && settings.replicas > 1) {
      log.warn(`high-availability.nats.lease-duration is ${leaseMs} ms: losing one NATS node costs its streams a leader election of several seconds without writes, which a lease under ${SHORTEST_SAFE_LEASE_MS} ms cannot outlast (the leader would give its leadership up)`);
    }
    return new KeyValueHighAvailabilityServices({
      clusterId,
      store,
      blobs: new NatsBlobStore(nc, blobsBucket, `NATS object store '${blobsBucket}'`),
      leaseMs,
      log,
      onStop: () => lease.release(),
    });
  } catch (e) {
    await lease.release();
    throw e;
  }
}
