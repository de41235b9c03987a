import type { NatsConnection } from '@nats-io/transport-node';
import type { WeirConfig } from '../../config/configuration.ts';
import type { Logger } from '../../log/logger.ts';
import { ensureKeyValueLayout } from '../bucket-layout.ts';
import { KeyValueHighAvailabilityServices } from '../key-value-high-availability-services.ts';
import { openKeyValueBucket, openObjectBucket } from './nats-buckets.ts';
import { NatsBlobStore } from './nats-blob-store.ts';
import { acquireNatsConnection, serverVersion } from './nats-connections.ts';
import { NatsKeyValueStore } from './nats-key-value-store.ts';
import { natsSettings } from './nats-settings.ts';
import { ensureObjectStoreLayout } from './object-store-layout.ts';

/** The HA records' bucket of a cluster: `high-availability.nats.bucket`, or `weir-ha-<cluster-id>`. */
export function haBucketName(config: WeirConfig): string {
  return config['high-availability.nats.bucket'] ?? `weir-ha-${config['high-availability.cluster-id']}`;
}

/**
 * HA services on NATS JetStream: the records in a key-value bucket (RAFT-replicated with
 * high-availability.nats.replicas), job bundles in an object store beside it. Fails at once, by
 * name, when NATS cannot be reached or the bucket belongs to another cluster or layout.
 */
export async function connectNatsHighAvailabilityServices(
  config: WeirConfig,
  log: Logger,
  /** A connection of the caller's (tests that play several JobManagers in one process); it stays the caller's to close. */
  own?: { readonly connection: NatsConnection },
): Promise<KeyValueHighAvailabilityServices> {
  const settings = natsSettings(config, 'high-availability');
  const clusterId = config['high-availability.cluster-id'];
  const leaseMs = config['high-availability.nats.lease-duration'];
  const lease = own ? { connection: own.connection, release: async () => {} } : await acquireNatsConnection(settings);
  try {
    const nc = lease.connection;
    const bucket = haBucketName(config);
    // A store operation must give up well within the lease, so that a renewal can be retried in it.
    const opTimeout = Math.max(500, Math.min(5000, Math.round(leaseMs / 4)));
    const kv = await openKeyValueBucket(nc, bucket, settings.replicas, opTimeout);
    const store = new NatsKeyValueStore(kv, `NATS bucket '${bucket}' at ${settings.servers.join(', ')}`);
    await ensureKeyValueLayout(store, bucket, clusterId);
    const blobsBucket = `${bucket}-blobs`;
    await openObjectBucket(nc, blobsBucket, settings.replicas, true);
    await ensureObjectStoreLayout(nc, blobsBucket, clusterId, 'write');
    log.info(`high availability on NATS ${serverVersion(nc)}: bucket '${bucket}', lease ${leaseMs} ms`, { clusterId, servers: settings.servers });
    return new KeyValueHighAvailabilityServices({
      clusterId,
      store,
      blobs: new NatsBlobStore(nc, blobsBucket, `NATS object store '${blobsBucket}'`),
      leaseMs,
      log,
      onClose: () => lease.release(),
    });
  } catch (e) {
    await lease.release();
    throw e;
  }
}
