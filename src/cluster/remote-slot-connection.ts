import type { StopReason } from '../lifecycle/service.ts';
import type { FromTaskExecutor, ToTaskExecutor } from '../rpc/control-protocol.ts';
import type { SlotLocation } from '../rpc/task-executor-gateway.ts';
import type { SlotInit } from '../rpc/task-manager-gateway.ts';
import type { SlotExecutorConnection } from '../coordinator/slot-executor-connection.ts';
import type { SlotGrant } from './resource-manager.ts';
import type { SlotListener } from './registered-task-manager.ts';

/**
 * A job's slot executor that runs in a slot of a TaskManager process (the JobMaster's channel to
 * it, as to a worker thread): messages go over the process's RPC connection addressed to the
 * allocation; the process starts the slot's thread, which loads the job bundle. A deploy gets the
 * job's slot locations, so the process knows which channels stay in its memory and which go to
 * which other process.
 */
export class RemoteSlotConnection implements SlotExecutorConnection, SlotListener {
  readonly index: number;
  readonly location = 'remote' as const;
  readonly where: string;
  readonly host: string;
  readonly taskManagerId: string;
  readonly grant: SlotGrant;
  readonly ready: Promise<void>;
  /** Its process was lost before the slot was ready (the allocation may ask again). */
  lostBeforeReady = false;
  readonly #locations: () => Record<number, SlotLocation>;
  readonly #release: () => void;
  /** The epoch of the leadership the job runs under, stamped on its messages (0 without HA). */
  readonly #leaderEpoch: number;
  #handler: (message: FromTaskExecutor) => void = () => {};
  #lost: (error: Error) => void = () => {};
  #readiness!: { resolve: () => void; reject: (e: Error) => void };
  #isReady = false;
  #ended = false;

  constructor(o: { index: number; grant: SlotGrant; locations: () => Record<number, SlotLocation>; release: () => void; leaderEpoch: number }) {
    this.index = o.index;
    this.grant = o.grant;
    this.#locations = o.locations;
    this.#release = o.release;
    this.#leaderEpoch = o.leaderEpoch;
    const tm = o.grant.taskManager;
    this.where = `slot ${o.grant.slot} of TaskManager ${tm.id} at ${tm.address}`;
    this.host = tm.registration.host;
    this.taskManagerId = tm.id;
    this.ready = new Promise((resolve, reject) => (this.#readiness = { resolve, reject }));
    // Not awaited by everyone: a slot lost before anyone asked must not be an unhandled rejection.
    this.ready.catch(() => {});
  }

  get slotLocation(): SlotLocation {
    const tm = this.grant.taskManager;
    return { taskManagerId: tm.id, host: tm.registration.host, dataPort: tm.registration.dataPort };
  }

  /** Asks the process to start the slot's thread with the job loaded; `ready` resolves when it has. */
  start(init: SlotInit): void {
    this.grant.taskManager.gateway.startSlot({ allocation: this.grant.allocation, slot: this.grant.slot, init, leaderEpoch: this.#leaderEpoch });
  }

  send(message: ToTaskExecutor): void {
    if (this.#ended) return;
    const m: ToTaskExecutor = message.type === 'deploy' ? { ...message, locations: this.#locations() } : message;
    this.grant.taskManager.gateway.toSlot({ allocation: this.grant.allocation, message: m, leaderEpoch: this.#leaderEpoch });
  }

  onMessage(handler: (message: FromTaskExecutor) => void): void {
    this.#handler = handler;
  }

  onLost(handler: (error: Error) => void): void {
    this.#lost = handler;
  }

  message(message: FromTaskExecutor): void {
    if (!this.#isReady) {
      if (message.type === 'ready') {
        this.#isReady = true;
        this.#readiness.resolve();
      } else if (message.type === 'deployFailed' && message.attempt === -1) {
        const e = Object.assign(new Error(`${this.where}: ${message.error.message}`), { name: message.error.name });
        if (message.error.stack) e.stack = message.error.stack;
        this.#readiness.reject(e);
        return;
      }
    }
    this.#handler(message);
  }

  lost(error: Error): void {
    if (this.#ended) return;
    if (!this.#isReady) {
      this.lostBeforeReady = true;
      this.#readiness.reject(error);
    }
    this.#lost(error);
  }

  /** Ends the slot's thread and frees the slot, whatever the reason: there is nothing to wait for across the network. */
  async stop(_reason: StopReason): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.#isReady) this.#readiness.reject(new Error(`${this.where} was released before it was ready`));
    this.#release();
  }
}
