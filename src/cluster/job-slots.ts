import type { Logger } from '../log/logger.ts';
import type { SlotInit, SlotLocation } from '../network/control-messages.ts';
import type { SlotProvider } from '../coordinator/slot-provider.ts';
import type { TaskManagerGateway } from '../coordinator/task-manager-gateway.ts';
import { RemoteSlotGateway } from './remote-slot-gateway.ts';
import type { ResourceManager } from './resource-manager.ts';

export interface JobSlotsOptions {
  readonly jobId: string;
  readonly resources: ResourceManager;
  /** What every slot thread loads: the bundle and how to plan the job (the index is the slot's). */
  readonly init: Omit<SlotInit, 'index' | 'taskManagers'>;
  readonly taskManagers: number;
  readonly timeoutMs: number;
  readonly log: Logger;
  /** The epoch of the leadership the job runs under, on every message to its slots; 0 (the default) without HA. */
  readonly leaderEpoch?: number;
}

/**
 * One job's slots in the cluster (Flink's SlotPool, as far as weir needs one): asks the
 * ResourceManager for slots, starts the job's thread in each, and knows where each of the job's
 * TaskManagers runs, which every deploy carries.
 */
export class JobSlots implements SlotProvider {
  readonly #o: JobSlotsOptions;
  readonly #locations: Record<number, SlotLocation> = {};
  readonly #gateways = new Set<RemoteSlotGateway>();
  #closed = false;

  constructor(o: JobSlotsOptions) {
    this.#o = o;
  }

  async allocate(indexes: readonly number[]): Promise<TaskManagerGateway[]> {
    if (this.#closed) throw new Error(`job ${this.#o.jobId} has ended`);
    const { resources, jobId, timeoutMs } = this.#o;
    const gateways: RemoteSlotGateway[] = [];
    await resources.requestSlots(jobId, indexes.length, timeoutMs, (grant) => {
      const index = indexes[gateways.length]!;
      const g: RemoteSlotGateway = new RemoteSlotGateway({
        index,
        grant,
        locations: () => ({ ...this.#locations }),
        leaderEpoch: this.#o.leaderEpoch ?? 0,
        release: () => {
          this.#gateways.delete(g);
          resources.release(grant);
        },
      });
      gateways.push(g);
      return g;
    });
    for (const g of gateways) {
      this.#gateways.add(g);
      this.#locations[g.index] = g.slotLocation;
      g.start({ ...this.#o.init, index: g.index, taskManagers: this.#o.taskManagers });
    }
    if (this.#closed) {
      await Promise.all(gateways.map((g) => g.terminate()));
      throw new Error(`job ${jobId} ended while its slots were being allocated`);
    }
    try {
      await Promise.all(gateways.map((g) => g.ready));
    } catch (e) {
      await Promise.all(gateways.map((g) => g.terminate()));
      throw e;
    }
    this.#o.log.info(`slots for TaskManagers ${indexes.join(', ')}: ${gateways.map((g) => g.where).join('; ')}`);
    return gateways;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#gateways].map((g) => g.terminate()));
  }
}
