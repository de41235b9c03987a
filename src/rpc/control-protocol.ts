import type { MessagesOf } from './gateway-proxy.ts';
import type { JobMasterGateway } from './job-master-gateway.ts';
import type { ResourceManagerGateway } from './resource-manager-gateway.ts';
import type { SlotPlanning, TaskManagerGateway } from './task-manager-gateway.ts';
import type { TaskExecutorGateway } from './task-executor-gateway.ts';

/**
 * The control plane's protocol, in one place: the messages between the JobMaster and its slot
 * executors, and between the JobManager and TaskManager processes, each derived from its gateway
 * (a method's name is its message's `type`, see gateway-proxy.ts). In-thread executors receive
 * the same objects; worker threads receive them structured-cloned and TaskManager processes
 * V8-serialized, so everything here is plain data.
 *
 * The version is that of every internal connection's wire (cluster/handshake.ts): a peer of
 * another version is refused before anything is decoded.
 *   2: every JobManager -> TaskManager message carries its sender's leader epoch (JobManagerEpoch).
 *   3: message types are the gateways' method names (camelCase).
 */
export const CONTROL_PROTOCOL_VERSION = 3;

/** JobMaster -> slot executor. */
export type ToTaskExecutor = MessagesOf<TaskExecutorGateway>;
/** Slot executor -> JobMaster. */
export type FromTaskExecutor = MessagesOf<JobMasterGateway>;
/** TaskManager process -> JobManager. */
export type ResourceManagerMessage = MessagesOf<ResourceManagerGateway>;
/** JobManager -> TaskManager process, each stamped with the sender's leader epoch. */
export type TaskManagerMessage = MessagesOf<TaskManagerGateway>;
/** Everything on the RPC connection between the JobManager and a TaskManager process, both ways. */
export type RpcMessage = ResourceManagerMessage | TaskManagerMessage;

/** The first message a worker-thread slot executor gets (its workerData): how to build the job graph itself. */
export interface SlotExecutorThreadInit extends SlotPlanning {
  readonly type: 'init';
  /** What the thread imports: the job module or its bundle. */
  readonly modulePath: string;
}

// The protocol's data types, declared with the gateways that carry them, found here too.
export type { MessagesOf } from './gateway-proxy.ts';
export type { TaskStatus } from '../network/task-status.ts';
export type { OperatorFigures, TaskFigures, TaskMetrics } from './job-master-gateway.ts';
export type { TaskDeployment, RemoteChannelEndpoint, SlotLocation } from './task-executor-gateway.ts';
export type { TaskManagerRegistration } from './resource-manager-gateway.ts';
export type { JobManagerEpoch, SlotInit } from './task-manager-gateway.ts';
