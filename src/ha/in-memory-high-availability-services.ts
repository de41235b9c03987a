import { silentLogger, type Logger } from '../log/logger.ts';
import { InMemoryBlobStore } from './in-memory-blob-store.ts';
import { InMemoryKeyValueBackend, InMemoryKeyValueStore } from './in-memory-key-value-store.ts';
import { KeyValueHighAvailabilityServices } from './key-value-high-availability-services.ts';

export interface InMemoryHighAvailabilityOptions {
  readonly clusterId?: string;
  readonly leaseMs?: number;
  readonly log?: Logger;
  /** Shared by several services objects of one process: several "JobManagers" in a test. */
  readonly backend?: InMemoryKeyValueBackend;
  readonly blobs?: InMemoryBlobStore;
}

/**
 * HA services in this process's memory (Flink's embedded HA services): the one-process mode, where
 * the only contender is granted at once, and tests of the election and the stores. The store is
 * returned too, so a test can cut one "JobManager" off (store.disconnect()).
 */
export function inMemoryHighAvailabilityServices(o: InMemoryHighAvailabilityOptions = {}): { services: KeyValueHighAvailabilityServices; store: InMemoryKeyValueStore } {
  const store = new InMemoryKeyValueStore(o.backend ?? new InMemoryKeyValueBackend());
  const services = new KeyValueHighAvailabilityServices({
    clusterId: o.clusterId ?? 'default',
    store,
    blobs: o.blobs ?? new InMemoryBlobStore(),
    leaseMs: o.leaseMs ?? 15_000,
    log: o.log ?? silentLogger,
  });
  return { services, store };
}
