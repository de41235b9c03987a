// The HA services contract on the in-memory store (the one-process mode and the model for NATS).
import { InMemoryBlobStore } from '../../src/ha/in-memory-blob-store.ts';
import { InMemoryKeyValueBackend } from '../../src/ha/in-memory-key-value-store.ts';
import { inMemoryHighAvailabilityServices } from '../../src/ha/in-memory-high-availability-services.ts';
import { haServicesContract } from '../fixtures/ha-contract.ts';

haServicesContract('in memory', async (o) => {
  const backend = new InMemoryKeyValueBackend();
  const blobs = new InMemoryBlobStore();
  const leaseMs = o?.leaseMs ?? 600;
  return {
    leaseMs,
    node: async () => {
      const { services, store } = inMemoryHighAvailabilityServices({ backend, blobs, leaseMs });
      return { services, cutOff: async () => store.disconnect() };
    },
  };
});
