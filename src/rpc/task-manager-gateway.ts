import type { GatewayMethods, MessagesOf } from './gateway-proxy.ts';
import type { TaskExecutorGateway } from './task-executor-gateway.ts';

/**
 * What the JobManager calls on a TaskManager process over its RPC connection (in cluster mode a
 * TaskManager is the process; each of its slots runs a slot executor): the registration's answer,
 * heartbeats, slots started and stopped, the JobMasters' calls to a slot, and job bundles. Every
 * call is stamped with the leader epoch its sender acts under (JobManagerEpoch).
 */
export interface TaskManagerGateway {
  registered(p: { readonly jobManager: string } & JobManagerEpoch): void;
  heartbeatRequest(p: { readonly seq: number } & JobManagerEpoch): void;
  /** Start the slot's thread with the job loaded; it answers `ready` through fromSlot. */
  startSlot(p: { readonly allocation: string; readonly slot: number; readonly init: SlotInit } & JobManagerEpoch): void;
  /** A JobMaster's call on the slot's executor, as it made it. */
  toSlot(p: { readonly allocation: string; readonly message: MessagesOf<TaskExecutorGateway> } & JobManagerEpoch): void;
  stopSlot(p: { readonly allocation: string } & JobManagerEpoch): void;
  /** The answer to fetchBundle: the code, or null and why. */
  bundle(p: { readonly hash: string; readonly code: Uint8Array | null; readonly error?: string } & JobManagerEpoch): void;
}

export const TASK_MANAGER_METHODS: GatewayMethods<TaskManagerGateway> = {
  registered: true,
  heartbeatRequest: true,
  startSlot: true,
  toSlot: true,
  stopSlot: true,
  bundle: true,
};

/**
 * What every JobManager -> TaskManager call carries: the leader epoch under which its sender acts
 * (a job's calls: the leadership the job runs under; the rest: the one the JobManager holds or
 * held last). A TaskManager that has seen a newer epoch refuses it
 * (cluster/leader-epoch-fence.ts), which is what fences a paused old leader off: it cannot be
 * relied on to stop by itself. 0: no high availability, nothing to fence by.
 */
export interface JobManagerEpoch {
  readonly leaderEpoch: number;
}

/** How a slot's thread plans the job itself, wherever it runs: which slot it is, and the job's module, arguments and configuration. */
export interface SlotPlanning {
  /** The job's slot index this slot is (subtask i of every vertex runs on slot i mod n). */
  readonly index: number;
  readonly taskManagers: number;
  /** The job module as the user gave it, named in errors (what the thread imports may be a bundle of it). */
  readonly jobModulePath: string;
  readonly args: readonly string[];
  /** The JobMaster's log level: lines below it are not sent. */
  readonly logLevel?: 'debug' | 'info' | 'warn' | 'error';
  readonly layers: ConfigLayersData;
}

/** What a slot thread of a TaskManager process needs to load the job: the bundle (by content hash) and how to plan it. */
export interface SlotInit extends SlotPlanning {
  readonly jobId: string;
  readonly bundle: string;
}

/** The configuration layers a thread plans the job with (file and command line), as plain data. */
export interface ConfigLayersData {
  readonly file?: Record<string, unknown>;
  readonly filePath?: string;
  readonly commandLine?: Record<string, unknown>;
}
