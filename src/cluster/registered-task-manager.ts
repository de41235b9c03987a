import { HeartbeatMonitor } from '../coordinator/heartbeat-monitor.ts';
import { systemClock } from '../clock/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { FromTaskExecutor, ResourceManagerMessage, RpcMessage } from '../rpc/control-protocol.ts';
import { dispatchMessage, gatewayProxy } from '../rpc/gateway-proxy.ts';
import type { SerializedError } from '../rpc/serialized-error.ts';
import { RESOURCE_MANAGER_METHODS, type ResourceManagerGateway, type TaskManagerRegistration } from '../rpc/resource-manager-gateway.ts';
import { TASK_MANAGER_METHODS, type TaskManagerGateway } from '../rpc/task-manager-gateway.ts';
import { UnknownMessageError } from '../rpc/unknown-message-error.ts';
import type { RpcConnection } from './rpc-connection.ts';

/** What a slot's connection is told by the connection to its TaskManager process. */
export interface SlotListener {
  message(message: FromTaskExecutor): void;
  /** The slot's thread ended, or the whole TaskManager was lost. */
  lost(error: Error): void;
}

/**
 * A TaskManager process as the JobManager knows it (Flink's TaskExecutorRegistration with its
 * heartbeat target): its connection, its slots and what holds them, and its heartbeats. A closed
 * connection or a heartbeat timeout loses it, and with it every slot's allocation.
 */
export class RegisteredTaskManager {
  readonly registration: TaskManagerRegistration;
  readonly registeredAt = Date.now();
  /** Allocation id per slot, undefined while the slot is free. */
  readonly slots: Array<string | undefined>;
  /** The process's gateway: calls go over its connection, and nowhere once it is lost. */
  readonly gateway: TaskManagerGateway;
  readonly #rpc: RpcConnection;
  readonly #listeners = new Map<string, SlotListener>();
  readonly #heartbeat: HeartbeatMonitor;
  readonly #log: Logger;
  #lastHeartbeat = Date.now();
  #freeMemory: number;
  #lostReason: string | undefined;
  #onLost: (tm: RegisteredTaskManager, reason: string) => void = () => {};

  readonly #bundle: (hash: string) => Uint8Array | undefined;
  /** The JobManager's leader epoch, stamped on what it sends of its own (a job's messages carry the job's). */
  readonly #leaderEpoch: () => number;

  constructor(
    registration: TaskManagerRegistration,
    rpc: RpcConnection,
    o: { heartbeatIntervalMs: number; heartbeatTimeoutMs: number; log: Logger; bundle: (hash: string) => Uint8Array | undefined; leaderEpoch: () => number },
  ) {
    this.registration = registration;
    this.slots = Array.from({ length: registration.slots }, () => undefined);
    this.#rpc = rpc;
    this.gateway = gatewayProxy(TASK_MANAGER_METHODS, (m) => {
      if (!this.lost) rpc.send(m);
    });
    this.#log = o.log;
    this.#bundle = o.bundle;
    this.#leaderEpoch = o.leaderEpoch;
    this.#freeMemory = registration.hardware.freeMemory;
    this.#heartbeat = new HeartbeatMonitor({
      intervalMs: o.heartbeatIntervalMs,
      timeoutMs: o.heartbeatTimeoutMs,
      clock: systemClock,
      send: (seq) => this.gateway.heartbeatRequest({ seq, leaderEpoch: o.leaderEpoch() }),
      onTimeout: (silentMs) => this.lose(`it has not answered heartbeats for ${(silentMs / 1000).toFixed(1)} s (heartbeat.timeout ${o.heartbeatTimeoutMs / 1000} s): it died, hangs or is cut off`),
    });
    rpc.onMessage((m) => this.#receive(m));
    rpc.onClose((e) => this.lose(`its connection closed${e ? ` (${e.message})` : ''}: the process ended or the network between it and the JobManager failed`));
  }

  get id(): string {
    return this.registration.id;
  }

  /** host:dataPort, as the REST API and errors name it. */
  get address(): string {
    return `${this.registration.host}:${this.registration.dataPort}`;
  }

  get lastHeartbeat(): number {
    return this.#lastHeartbeat;
  }

  get freeMemory(): number {
    return this.#freeMemory;
  }

  get lost(): boolean {
    return this.#lostReason !== undefined;
  }

  get freeSlots(): number {
    return this.lost ? 0 : this.slots.filter((s) => s === undefined).length;
  }

  start(onLost: (tm: RegisteredTaskManager, reason: string) => void): void {
    this.#onLost = onLost;
    this.#heartbeat.start();
  }

  /** Takes a free slot for an allocation; its messages go to `listener`. */
  allocate(slot: number, allocation: string, listener: SlotListener): void {
    if (this.lost) {
      queueMicrotask(() => listener.lost(new Error(`TaskManager process ${this.id} at ${this.address} was lost: ${this.#lostReason}`)));
      return;
    }
    this.slots[slot] = allocation;
    this.#listeners.set(allocation, listener);
  }

  /** The allocation has ended: its slot is free again (the process is told to end the thread). */
  release(allocation: string): void {
    const slot = this.slots.indexOf(allocation);
    if (slot >= 0) this.slots[slot] = undefined;
    if (this.#listeners.delete(allocation)) this.gateway.stopSlot({ allocation, leaderEpoch: this.#leaderEpoch() });
  }

  /** Loses the TaskManager: every slot's holder is told, the connection is closed. */
  lose(reason: string): void {
    if (this.#lostReason !== undefined) return;
    this.#lostReason = reason;
    this.#heartbeat.stop();
    this.#log.warn(`TaskManager ${this.id} at ${this.address} lost: ${reason}`, { taskManager: this.id });
    const error = new Error(`TaskManager process ${this.id} at ${this.address} was lost: ${reason}`);
    for (const l of [...this.#listeners.values()]) l.lost(error);
    this.#listeners.clear();
    this.slots.fill(undefined);
    this.#rpc.close();
    this.#onLost(this, reason);
  }

  #receive(m: RpcMessage): void {
    try {
      // A message of the other direction is not one of this gateway's: unexpected, like any unknown one.
      dispatchMessage(RESOURCE_MANAGER_METHODS, this.#endpoint, m as ResourceManagerMessage);
    } catch (e) {
      if (!(e instanceof UnknownMessageError)) throw e;
      this.#log.warn(`TaskManager ${this.id} sent an unexpected ${String(e.messageType)} message; ignored`);
    }
  }

  /** The JobManager's side of this process's ResourceManagerGateway. */
  readonly #endpoint: ResourceManagerGateway = {
    register: () => this.#log.warn(`TaskManager ${this.id} sent an unexpected register message; ignored`),
    heartbeatReply: (m) => {
      this.#lastHeartbeat = Date.now();
      this.#freeMemory = m.freeMemory;
      this.#heartbeat.received();
    },
    fromSlot: (m) => this.#listeners.get(m.allocation)?.message(m.message),
    fetchBundle: (m) => {
      const code = this.#bundle(m.hash);
      const leaderEpoch = this.#leaderEpoch();
      this.gateway.bundle(code ? { hash: m.hash, code, leaderEpoch } : { hash: m.hash, code: null, error: `the JobManager has no bundle ${m.hash}`, leaderEpoch });
    },
    slotLost: (m) => {
      const l = this.#listeners.get(m.allocation);
      if (!l) return;
      this.#listeners.delete(m.allocation);
      const slot = this.slots.indexOf(m.allocation);
      if (slot >= 0) this.slots[slot] = undefined;
      l.lost(errorFrom(m.error, `slot ${slot} of TaskManager ${this.id} at ${this.address}`));
    },
  };
}

function errorFrom(e: SerializedError, where: string): Error {
  const error = new Error(`${where}: ${e.message}`);
  error.name = e.name;
  if (e.stack) error.stack = `${error.name}: ${error.message}\n${e.stack.split('\n').slice(1).join('\n')}`;
  return error;
}
