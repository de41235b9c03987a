import type { Logger } from '../log/logger.ts';
import type { SlotInit } from '../rpc/task-manager-gateway.ts';
import type { SlotLocation } from '../rpc/task-executor-gateway.ts';
import type { SlotProvider } from '../coordinator/slot-provider.ts';
import type { SlotExecutorConnection } from '../coordinator/slot-executor-connection.ts';
import { SHUTDOWN } from '../lifecycle/service.ts';
import { RemoteSlotConnection } from './remote-slot-connection.ts';
import type { ResourceManager } from './resource-manager.ts';

/** How many times an allocation starts over when a process holding one of its slots is lost first. */
const ALLOCATION_ATTEMPTS = 3;

/** An allocation whose slot's process was lost before the slot was ready: worth asking again. */
class SlotsLostBeforeReadyError extends Error {
  constructor(cause: unknown) {
    super('a slot was lost before it was ready', { cause });
    this.name = 'SlotsLostBeforeReadyError';
  }
}

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
  readonly #connections = new Set<RemoteSlotConnection>();
  #closed = false;

  constructor(o: JobSlotsOptions) {
    this.#o = o;
  }

  /**
   * Slots for the job's TaskManagers `indexes`, each with the job loaded. A slot whose process is
   * lost before the slot is ready (a host cut off is only declared lost after heartbeat.timeout,
   * and its freed slots may be granted meanwhile) makes the allocation start over on the slots
   * left, a few times, instead of failing the restart that asked for them.
   */
  async allocate(indexes: readonly number[]): Promise<SlotExecutorConnection[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#allocateOnce(indexes);
      } catch (e) {
        if (!(e instanceof SlotsLostBeforeReadyError) || attempt >= ALLOCATION_ATTEMPTS || this.#closed) throw e instanceof SlotsLostBeforeReadyError ? e.cause : e;
        this.#o.log.warn(`slots for TaskManagers ${indexes.join(', ')}: ${(e.cause as Error).message}; asking for slots again (attempt ${attempt + 1} of ${ALLOCATION_ATTEMPTS})`);
      }
    }
  }

  async #allocateOnce(indexes: readonly number[]): Promise<SlotExecutorConnection[]> {
    if (this.#closed) throw new Error(`job ${this.#o.jobId} has ended`);
    const { resources, jobId, timeoutMs } = this.#o;
    const connections: RemoteSlotConnection[] = [];
    await resources.requestSlots(jobId, indexes.length, timeoutMs, (grant) => {
      const index = indexes[connections.length]!;
      const c: RemoteSlotConnection = new RemoteSlotConnection({
        index,
        grant,
        locations: () => ({ ...this.#locations }),
        leaderEpoch: this.#o.leaderEpoch ?? 0,
        release: () => {
          this.#connections.delete(c);
          resources.release(grant);
        },
      });
      connections.push(c);
      return c;
    });
    for (const c of connections) {
      this.#connections.add(c);
      this.#locations[c.index] = c.slotLocation;
      c.start({ ...this.#o.init, index: c.index, taskManagers: this.#o.taskManagers });
    }
    if (this.#closed) {
      await Promise.all(connections.map((c) => c.stop(SHUTDOWN)));
      throw new Error(`job ${jobId} ended while its slots were being allocated`);
    }
    try {
      await Promise.all(connections.map((c) => c.ready));
    } catch (e) {
      await Promise.all(connections.map((c) => c.stop({ code: 'failed', cause: e as Error })));
      throw connections.some((c) => c.lostBeforeReady) ? new SlotsLostBeforeReadyError(e) : e;
    }
    this.#o.log.info(`slots for TaskManagers ${indexes.join(', ')}: ${connections.map((c) => c.where).join('; ')}`);
    return connections;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#connections].map((c) => c.stop(SHUTDOWN)));
  }
}
