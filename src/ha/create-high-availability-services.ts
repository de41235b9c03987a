import type { WeirConfig } from '../config/configuration.ts';
import type { Logger } from '../log/logger.ts';
import type { HighAvailabilityServices } from './high-availability-services.ts';
import { inMemoryHighAvailabilityServices } from './in-memory-high-availability-services.ts';
import { connectNatsHighAvailabilityServices } from './nats/nats-high-availability-services.ts';

/** high-availability.type picks them: none, this process's memory (the only contender leads at once); nats, JetStream. */
export async function createHighAvailabilityServices(config: WeirConfig, log: Logger): Promise<HighAvailabilityServices> {
  if (config['high-availability.type'] === 'nats') return connectNatsHighAvailabilityServices(config, log);
  return inMemoryHighAvailabilityServices({ clusterId: config['high-availability.cluster-id'], leaseMs: config['high-availability.nats.lease-duration'], log }).services;
}
