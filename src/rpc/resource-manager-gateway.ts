import type { GatewayMethods, MessagesOf } from './gateway-proxy.ts';
import type { JobMasterGateway } from './job-master-gateway.ts';
import type { SerializedError } from './serialized-error.ts';

/**
 * What a TaskManager process calls on the JobManager over its RPC connection (Flink's
 * ResourceManagerGateway, with the slots' way to their JobMasters): registration, heartbeat
 * answers, its slots' messages and ends, and job bundles. A slot is addressed by its allocation
 * id, new for every allocation, so that a message for an allocation that has ended reaches nothing.
 */
export interface ResourceManagerGateway {
  register(p: { readonly registration: TaskManagerRegistration }): void;
  heartbeatReply(p: { readonly seq: number; readonly freeMemory: number }): void;
  /** The slot's thread ended (or never started) on its own: its executor is lost. */
  slotLost(p: { readonly allocation: string; readonly error: SerializedError }): void;
  /** A slot executor's call on its JobMaster, as it made it. */
  fromSlot(p: { readonly allocation: string; readonly message: MessagesOf<JobMasterGateway> }): void;
  /** A job bundle by its content hash (Flink's BlobServer): it comes over this connection, so TLS and the token cover it. */
  fetchBundle(p: { readonly hash: string }): void;
}

export const RESOURCE_MANAGER_METHODS: GatewayMethods<ResourceManagerGateway> = {
  register: true,
  heartbeatReply: true,
  slotLost: true,
  fromSlot: true,
  fetchBundle: true,
};

/** What a TaskManager process announces when it registers with the JobManager. */
export interface TaskManagerRegistration {
  /** Its resource id (taskmanager.resource-id), unique in the cluster. */
  readonly id: string;
  /** The address its data port listens on, which other TaskManagers connect to. */
  readonly host: string;
  readonly dataPort: number;
  readonly slots: number;
  readonly pid: number;
  readonly hostname: string;
  readonly hardware: { readonly cpuCores: number; readonly physicalMemory: number; readonly freeMemory: number; readonly heapLimit: number };
}
