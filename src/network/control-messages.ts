import type { RingShape } from './segment-ring.ts';
import type { MessagePort } from 'node:worker_threads';
import type { CheckpointFailureCode } from '../checkpoint/checkpoint-failure-reason.ts';
import type { TaskRestoreState, TaskStateSnapshot } from '../checkpoint/state-handles.ts';
import type { CheckpointOptions } from './stream-event.ts';
import type { ActivityReport } from './task-activity.ts';
import type { TaskStatus } from './task-status.ts';
import type { WireWatermark } from './wire-watermark.ts';

/**
 * Every message between the JobMaster (coordinator) and the TaskManagers (workers), in one
 * discriminated union. In-thread TaskManagers receive the same objects; worker threads receive
 * them structured-cloned, so everything here is plain data (ports are transferred).
 */

export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly vertex?: string;
  readonly subtask?: number;
  readonly operator?: string;
  readonly uid?: string;
  /** The error says the job cannot run as defined (Flink's SuppressRestartsException): no restart. */
  readonly unrecoverable?: boolean;
  /** A failure made on purpose (fault injection): counted as such, not as a fault of the job. */
  readonly injected?: boolean;
  /** A TaskManager was lost (TaskManagerLostError): which one, so a restart under way stops waiting for it. */
  readonly taskManager?: number;
}

// In a file of its own, which needs nothing of Node: the REST views (and so the dashboard) use it too.
export type { TaskStatus } from './task-status.ts';

export interface TaskDeployment {
  readonly vertexId: string;
  readonly subtask: number;
  /** Source subtasks: the splits of a fresh start (a restore brings them in operator state). */
  readonly splits: unknown[];
  readonly restore: TaskRestoreState | null;
  /** Fault injection: fail this subtask after it has taken this many records (or at its end of input). */
  readonly failAfterRecords?: number;
}

/**
 * A channel between two TaskManagers: its shared-memory ring, which both ends attach to. Between
 * TaskManager processes the JobMaster sends no ring: the TaskManager process makes one on each
 * side (see cluster/slot-channels.ts) and fills it in before its slot thread sees the deploy.
 */
export interface RemoteChannelEndpoint {
  readonly edgeId: number;
  readonly producer: number;
  readonly consumer: number;
  readonly role: 'output' | 'input';
  /** The TaskManager (index) of the channel's other end. */
  readonly peer: number;
  readonly ring?: SharedArrayBuffer;
  readonly shape: RingShape;
}

/** Where a TaskManager of a job runs in a cluster: the process (its resource id) and its data address. */
export interface SlotLocation {
  readonly taskManagerId: string;
  readonly host: string;
  readonly dataPort: number;
}

export interface TaskFigures {
  readonly syncMs: number;
  readonly asyncMs: number;
  readonly alignmentMs: number;
  readonly startDelayMs: number;
  readonly processedBytes: number;
  readonly persistedBytes: number;
  readonly stateBytes: number;
  readonly unaligned: boolean;
}

export interface TaskMetrics extends ActivityReport {
  readonly vertexId: string;
  readonly subtask: number;
  readonly recordsIn: number;
  readonly recordsOut: number;
  /** Milliseconds the task has spent blocked on its outputs (backpressure) in this attempt. */
  readonly backpressure: number;
  /** Milliseconds the task has spent with nothing to do (no input, its source had nothing) in this attempt. */
  readonly idle: number;
  /** Bytes of record buffers received and sent over channels that serialize (between worker threads); 0 in one thread. */
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** The share of the input channels' buffers in use, 0..1 (Flink's inPoolUsage); 0 for a source. */
  readonly inPoolUsage: number;
  /** The share of the output channels' buffers in use, 0..1 (Flink's outPoolUsage). */
  readonly outPoolUsage: number;
  /** When the figures were taken (ms since the epoch): rates are taken between two reports. */
  readonly reportedAt: number;
  /** Source subtasks: their reader's own figures (e.g. CDC snapshot rows read, binlog lag). */
  readonly source?: Record<string, number>;
  /** The task's event time (wire-watermark.ts: null before the first watermark); a source's is its own output watermark. */
  readonly currentInputWatermark?: WireWatermark;
  /** Each chained operator's own figures, head first. */
  readonly operators?: ReadonlyArray<OperatorFigures>;
}

export interface OperatorFigures {
  readonly uid: string;
  readonly name: string;
  /** Window operators: records too late for every window that no side output took (Flink's numLateRecordsDropped). */
  readonly numLateRecordsDropped: number;
  readonly currentOutputWatermark: WireWatermark;
}

// JobMaster -> TaskManager
export type ToTaskManager =
  | {
      readonly type: 'deploy';
      readonly jobId: string;
      readonly attempt: number;
      readonly fingerprint: string;
      readonly tasks: TaskDeployment[];
      readonly remoteChannels: RemoteChannelEndpoint[];
      /** Which TaskManager runs each subtask, by vertex id: channels between two subtasks of one TaskManager stay in it. */
      readonly placement: Record<string, number[]>;
      /** In a cluster: where each of the job's TaskManagers (slots) runs, by index; channels between two slots of one process stay in shared memory. */
      readonly locations?: Record<number, SlotLocation>;
    }
  | { readonly type: 'trigger-checkpoint'; readonly attempt: number; readonly checkpointId: number; readonly timestamp: number; readonly options: CheckpointOptions }
  | { readonly type: 'checkpoint-complete'; readonly attempt: number; readonly checkpointId: number }
  | { readonly type: 'checkpoint-aborted'; readonly attempt: number; readonly checkpointId: number; readonly reason: string }
  | { readonly type: 'finish'; readonly attempt: number }
  /** Stop with savepoint: sources stop reading (drain: and end their input, so operators flush). */
  | { readonly type: 'stop-sources'; readonly attempt: number; readonly drain: boolean }
  /** The stop-with-savepoint failed: sources that were stopped (not drained) read on. */
  | { readonly type: 'resume-sources'; readonly attempt: number }
  | { readonly type: 'cancel'; readonly attempt: number }
  /** What the running subtasks are doing, whatever their attempt. */
  | { readonly type: 'describe'; readonly requestId: number }
  /** From a source's split enumerator to one of its readers; ordered with the checkpoint triggers. */
  | { readonly type: 'source-splits'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly splits: unknown[]; readonly noMoreSplits: boolean }
  | { readonly type: 'source-event'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly event: unknown }
  /** Watermark alignment: how far this source reader's splits may go in event time (the group's slowest plus its drift). */
  | { readonly type: 'watermark-alignment'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly maxAllowedWatermark: WireWatermark }
  /** Liveness: the TaskManager answers from its event loop; one that stops answering is lost. */
  | { readonly type: 'heartbeat'; readonly seq: number }
  /** From the TaskManager process: the TCP connection carrying this channel failed; the subtask at this end fails. */
  | { readonly type: 'channel-failed'; readonly attempt: number; readonly edgeId: number; readonly producer: number; readonly consumer: number; readonly reason: string }
  | { readonly type: 'shutdown' };

// TaskManager -> JobMaster
export type FromTaskManager =
  | { readonly type: 'ready'; readonly tm: number }
  | { readonly type: 'heartbeat'; readonly tm: number; readonly seq: number }
  /** Every subtask of this attempt (or an older one) has stopped: the next attempt may be deployed. */
  | { readonly type: 'canceled'; readonly tm: number; readonly attempt: number }
  | { readonly type: 'deploy-failed'; readonly tm: number; readonly attempt: number; readonly error: SerializedError }
  | {
      readonly type: 'task-status';
      readonly attempt: number;
      readonly vertexId: string;
      readonly subtask: number;
      readonly status: TaskStatus;
      readonly error?: SerializedError;
      /** Source subtasks that fail or are cancelled: their readers' positions (at-most-once restarts from them). */
      readonly positions?: unknown[];
    }
  | {
      readonly type: 'ack-checkpoint';
      readonly attempt: number;
      readonly vertexId: string;
      readonly subtask: number;
      readonly checkpointId: number;
      readonly state: TaskStateSnapshot;
      readonly figures: TaskFigures;
    }
  | {
      readonly type: 'decline-checkpoint';
      readonly attempt: number;
      readonly vertexId: string;
      readonly subtask: number;
      readonly checkpointId: number;
      readonly code: CheckpointFailureCode;
      readonly reason: string;
    }
  | { readonly type: 'metrics'; readonly attempt: number; readonly tasks: TaskMetrics[] }
  | { readonly type: 'described'; readonly requestId: number; readonly tasks: TaskMetrics[] }
  /** A log line of a TaskManager or one of its subtasks (with job id, vertex and subtask in the fields), written by the JobMaster's logger. */
  | { readonly type: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly message: string; readonly fields: Record<string, unknown> }
  /** From a source reader to its split enumerator. */
  | { readonly type: 'split-request'; readonly attempt: number; readonly vertexId: string; readonly subtask: number }
  | { readonly type: 'reader-event'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly event: unknown }
  /** Splits the enumerator assigned that reached a subtask no longer running: never read (an at-most-once restart reads them). */
  | { readonly type: 'splits-undelivered'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly splits: unknown[] }
  /** Watermark alignment: a source reader's watermark for its group, every update interval. */
  | { readonly type: 'watermark-report'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly group: string; readonly watermark: WireWatermark };

export function serializeError(error: unknown, extra: Partial<SerializedError> = {}): SerializedError {
  if (error instanceof Error) {
    const facts = error as Error & Partial<SerializedError>;
    const stack = stackWithCauses(error);
    return {
      name: error.name,
      message: error.message,
      ...(stack !== undefined ? { stack } : {}),
      ...pick(facts),
      ...extra,
    };
  }
  return { name: 'Error', message: String(error), ...extra };
}

/** The stack and its causes' stacks after it (Java's "Caused by:"): the cause objects do not cross threads. */
function stackWithCauses(error: Error): string | undefined {
  let stack = error.stack;
  let cause = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 8; depth++, cause = cause.cause) {
    stack = `${stack ?? `${error.name}: ${error.message}`}\nCaused by: ${cause.stack ?? `${cause.name}: ${cause.message}`}`;
  }
  return stack;
}

function pick(e: Partial<SerializedError>): Partial<SerializedError> {
  const out: { -readonly [K in keyof SerializedError]?: SerializedError[K] } = {};
  if (typeof e.vertex === 'string') out.vertex = e.vertex;
  if (typeof e.subtask === 'number') out.subtask = e.subtask;
  if (typeof e.operator === 'string') out.operator = e.operator;
  if (typeof e.uid === 'string') out.uid = e.uid;
  if (e.unrecoverable === true) out.unrecoverable = true;
  if (e.injected === true) out.injected = true;
  if (typeof e.taskManager === 'number') out.taskManager = e.taskManager;
  return out;
}

/** The first message a worker-thread TaskManager gets: how to build the job graph itself. */
export interface TaskManagerThreadInit {
  readonly type: 'init';
  readonly index: number;
  readonly taskManagers: number;
  /** What the thread imports: the job module or its bundle. */
  readonly modulePath: string;
  /** The job module as the user gave it, named in errors (modulePath may be a bundle of it). */
  readonly jobModulePath: string;
  readonly args: readonly string[];
  /** The JobMaster's log level: lines below it are not sent. */
  readonly logLevel?: 'debug' | 'info' | 'warn' | 'error';
  readonly layers: { readonly file?: Record<string, unknown>; readonly filePath?: string; readonly commandLine?: Record<string, unknown> };
}

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

/** What a slot thread needs to load the job: the bundle (by content hash) and how to plan it. */
export interface SlotInit {
  readonly jobId: string;
  /** The job's TaskManager index this slot is (subtask i of every vertex runs on slot i mod n). */
  readonly index: number;
  readonly taskManagers: number;
  readonly bundle: string;
  readonly jobModulePath: string;
  readonly args: readonly string[];
  readonly logLevel?: 'debug' | 'info' | 'warn' | 'error';
  readonly layers: TaskManagerThreadInit['layers'];
}

/**
 * The cluster's RPC between the JobManager process and TaskManager processes, over one framed TCP
 * connection per TaskManager (after the handshake of cluster/handshake.ts): registration, slots,
 * heartbeats both ways, and the JobMaster's messages to and from a slot, which are the unions above
 * unchanged. A slot is addressed by its allocation id, new for every allocation, so that a message
 * for an allocation that has ended reaches nothing.
 */
export type RpcMessage =
  // TaskManager process -> JobManager
  | { readonly type: 'register'; readonly registration: TaskManagerRegistration }
  | { readonly type: 'heartbeat-reply'; readonly seq: number; readonly freeMemory: number }
  /** The slot's thread ended (or never started) on its own: its TaskManager is lost. */
  | { readonly type: 'slot-lost'; readonly allocation: string; readonly error: SerializedError }
  | { readonly type: 'from-slot'; readonly allocation: string; readonly message: FromTaskManager }
  /** A job bundle by its content hash (Flink's BlobServer): it comes over this connection, so TLS and the token cover it. */
  | { readonly type: 'fetch-bundle'; readonly hash: string }
  // JobManager -> TaskManager process, each stamped with the sender's leader epoch (JobManagerEpoch)
  | ({ readonly type: 'bundle'; readonly hash: string; readonly code: Uint8Array | null; readonly error?: string } & JobManagerEpoch)
  | ({ readonly type: 'registered'; readonly jobManager: string } & JobManagerEpoch)
  | ({ readonly type: 'heartbeat-request'; readonly seq: number } & JobManagerEpoch)
  | ({ readonly type: 'start-slot'; readonly allocation: string; readonly slot: number; readonly init: SlotInit } & JobManagerEpoch)
  | ({ readonly type: 'to-slot'; readonly allocation: string; readonly message: ToTaskManager } & JobManagerEpoch)
  | ({ readonly type: 'stop-slot'; readonly allocation: string } & JobManagerEpoch);

/**
 * What every JobManager -> TaskManager RPC message carries: the leader epoch under which its
 * sender acts (a job's messages: the leadership the job runs under; the rest: the one the
 * JobManager holds or held last). A TaskManager that has seen a newer epoch refuses it
 * (cluster/leader-epoch-fence.ts), which is what fences a paused old leader off: it cannot be
 * relied on to stop by itself. 0: no high availability, nothing to fence by.
 */
export interface JobManagerEpoch {
  readonly leaderEpoch: number;
}

/** The JobManager -> TaskManager process messages of the RPC union. */
export type ToTaskManagerProcess = Extract<RpcMessage, JobManagerEpoch>;
