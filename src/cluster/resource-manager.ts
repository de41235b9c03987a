import { randomUUID } from 'node:crypto';
import type { Logger } from '../log/logger.ts';
import type { TaskManagerRegistration } from '../rpc/resource-manager-gateway.ts';
import { RegisteredTaskManager, type SlotListener } from './registered-task-manager.ts';
import type { RpcConnection } from './rpc-connection.ts';
import { SlotRequestTimeoutError } from './slot-request-timeout-error.ts';

/** One slot given to a job: which TaskManager process, which of its slots, and the allocation's id. */
export interface SlotGrant {
  readonly taskManager: RegisteredTaskManager;
  readonly slot: number;
  readonly allocation: string;
}

interface PendingRequest {
  readonly jobId: string;
  readonly count: number;
  readonly resolve: (grants: Array<{ tm: RegisteredTaskManager; slot: number }>) => void;
  readonly reject: (e: Error) => void;
  readonly timer: NodeJS.Timeout;
}

export interface ResourceManagerOptions {
  readonly heartbeatIntervalMs: number;
  readonly heartbeatTimeoutMs: number;
  readonly log: Logger;
  /** The bundles TaskManagers ask for, by content hash. */
  readonly bundle: (hash: string) => Uint8Array | undefined;
  /**
   * The leader epoch stamped on the JobManager's own messages to TaskManagers (registered,
   * heartbeats, bundles, slot stops): the one it holds or held last; 0 (the default) without HA.
   */
  readonly leaderEpoch?: () => number;
}

/**
 * The JobManager's TaskManagers and their slots (Flink's ResourceManager with the slot manager):
 * TaskManager processes register and offer slots; jobs ask for a number of slots, all at once,
 * and wait in order of asking until that many are free, up to slot.request.timeout. Slots are
 * taken from the TaskManagers with the most free ones first, so that a job spreads over processes
 * (each process moves its channels to other processes on one thread of its own).
 */
export class ResourceManager {
  readonly #o: ResourceManagerOptions;
  readonly #taskManagers = new Map<string, RegisteredTaskManager>();
  readonly #pending: PendingRequest[] = [];
  #changed: Array<() => void> = [];

  constructor(o: ResourceManagerOptions) {
    this.#o = o;
  }

  taskManagers(): RegisteredTaskManager[] {
    return [...this.#taskManagers.values()];
  }

  get(id: string): RegisteredTaskManager | undefined {
    return this.#taskManagers.get(id);
  }

  /** Whether a TaskManager with this id is registered and not lost (a second one with its id is refused). */
  isRegistered(id: string): boolean {
    const tm = this.#taskManagers.get(id);
    return tm !== undefined && !tm.lost;
  }

  get slotsTotal(): number {
    return this.taskManagers().reduce((n, tm) => n + tm.slots.length, 0);
  }

  get slotsAvailable(): number {
    return this.taskManagers().reduce((n, tm) => n + tm.freeSlots, 0);
  }

  /** Calls `f` whenever a TaskManager registers, is lost, or a slot is freed (tests await the cluster's shape by it). */
  onChange(f: () => void): () => void {
    this.#changed.push(f);
    return () => (this.#changed = this.#changed.filter((x) => x !== f));
  }

  register(registration: TaskManagerRegistration, rpc: RpcConnection): RegisteredTaskManager {
    const leaderEpoch = this.#o.leaderEpoch ?? (() => 0);
    const tm = new RegisteredTaskManager(registration, rpc, { heartbeatIntervalMs: this.#o.heartbeatIntervalMs, heartbeatTimeoutMs: this.#o.heartbeatTimeoutMs, log: this.#o.log, bundle: this.#o.bundle, leaderEpoch });
    this.#taskManagers.set(registration.id, tm);
    tm.start((lost) => {
      if (this.#taskManagers.get(lost.id) === lost) this.#taskManagers.delete(lost.id);
      this.#notify();
    });
    tm.gateway.registered({ jobManager: 'jobmanager', leaderEpoch: leaderEpoch() });
    this.#o.log.info(`TaskManager ${registration.id} registered from ${rpc.address} with ${registration.slots} slot${registration.slots === 1 ? '' : 's'} (data ${registration.host}:${registration.dataPort})`, {
      taskManager: registration.id,
      slots: registration.slots,
    });
    this.#serve();
    this.#notify();
    return tm;
  }

  /**
   * `count` slots for a job, all at once; waits (in order of asking) up to timeoutMs for that many
   * to be free. Each grant's listener gets its slot's messages.
   */
  async requestSlots(jobId: string, count: number, timeoutMs: number, listen: (grant: SlotGrant) => SlotListener): Promise<SlotGrant[]> {
    const picked = await new Promise<Array<{ tm: RegisteredTaskManager; slot: number }>>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.#pending.indexOf(request);
        if (i >= 0) this.#pending.splice(i, 1);
        const tms = this.taskManagers().filter((tm) => !tm.lost);
        reject(
          new SlotRequestTimeoutError({
            jobId,
            needed: count,
            free: this.slotsAvailable,
            offered: this.slotsTotal,
            taskManagers: tms.length,
            timeoutMs,
            detail: tms.map((tm) => `${tm.id}: ${tm.freeSlots} of ${tm.slots.length} free`).join(', '),
          }),
        );
      }, timeoutMs);
      const request: PendingRequest = { jobId, count, resolve, reject, timer };
      this.#pending.push(request);
      this.#serve();
    });
    return picked.map(({ tm, slot }) => {
      const allocation = randomUUID();
      const grant = { taskManager: tm, slot, allocation };
      tm.allocate(slot, allocation, listen(grant));
      return grant;
    });
  }

  /** A slot's allocation has ended: the slot is free for the next request. */
  release(grant: SlotGrant): void {
    grant.taskManager.release(grant.allocation);
    this.#serve();
    this.#notify();
  }

  /** Gives up every waiting request (the JobManager is shutting down). */
  close(): void {
    for (const r of this.#pending.splice(0)) {
      clearTimeout(r.timer);
      r.reject(new Error('the JobManager is shutting down'));
    }
    for (const tm of this.taskManagers()) tm.lose('the JobManager shut down');
  }

  /** Serves waiting requests in order while the first one can be served whole. */
  #serve(): void {
    while (this.#pending.length > 0) {
      const first = this.#pending[0]!;
      if (this.slotsAvailable < first.count) return;
      this.#pending.shift();
      clearTimeout(first.timer);
      first.resolve(this.#pick(first.count));
    }
  }

  #pick(count: number): Array<{ tm: RegisteredTaskManager; slot: number }> {
    const free = new Map(this.taskManagers().map((tm) => [tm, tm.slots.flatMap((s, i) => (s === undefined && !tm.lost ? [i] : []))]));
    const picked: Array<{ tm: RegisteredTaskManager; slot: number }> = [];
    while (picked.length < count) {
      let best: RegisteredTaskManager | undefined;
      for (const [tm, slots] of free) if (slots.length > 0 && (!best || slots.length > free.get(best)!.length)) best = tm;
      // Reserved here so that the next pick sees it taken, before the allocation ids are made.
      picked.push({ tm: best!, slot: free.get(best!)!.shift()! });
    }
    for (const p of picked) p.tm.slots[p.slot] = 'reserved';
    return picked;
  }

  #notify(): void {
    for (const f of [...this.#changed]) f();
  }
}
