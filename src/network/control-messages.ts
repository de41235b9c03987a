import type { MessagePort } from 'node:worker_threads';
import type { CheckpointOptions } from './stream-event.ts';
import type { TaskStatus } from './task-status.ts';

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
}

// In a file of its own, which needs nothing of Node: the REST views (and so the dashboard) use it too.
export type { TaskStatus } from './task-status.ts';

/** Operator list state: name -> values and how they are redistributed. */
export type OperatorStateMap = Record<string, { readonly mode: 'split' | 'union'; readonly values: unknown[] }>;

/** Where one subtask's keyed state of one operator lies: a file and the byte range of each key group. */
export interface KeyedStateHandle {
  readonly file: string;
  readonly keyGroups: ReadonlyArray<{ readonly keyGroup: number; readonly offset: number; readonly length: number }>;
  readonly states: ReadonlyArray<{ readonly name: string; readonly kind: string; readonly serializer: string; readonly version: number }>;
  readonly entries: number;
  readonly bytes: number;
  readonly crc32: number;
}

/** In-flight data of one channel captured by an unaligned checkpoint. */
export interface ChannelStateHandle {
  readonly file: string;
  readonly offset: number;
  readonly length: number;
  readonly records: number;
  readonly crc32: number;
}

export interface OperatorSubtaskState {
  readonly operatorId: string;
  readonly uid: string;
  readonly keyed: KeyedStateHandle | null;
  readonly operator: OperatorStateMap;
}

export interface TaskStateSnapshot {
  readonly operators: OperatorSubtaskState[];
  /** Unaligned checkpoints: per input channel (by gate index) and per output channel. */
  readonly inputChannels: Record<string, ChannelStateHandle>;
  readonly outputChannels: Record<string, ChannelStateHandle>;
}

/** State handed to one operator of one subtask on restore (possibly gathered from several old subtasks). */
export interface OperatorRestoreState {
  readonly keyed: KeyedStateHandle[];
  readonly operator: OperatorStateMap;
}

export interface TaskRestoreState {
  readonly checkpointId: number;
  /** The directory of the checkpoint or savepoint; handle file names are relative to it. */
  readonly directory: string;
  /** By operator uid. */
  readonly operators: Record<string, OperatorRestoreState>;
  /** In-flight data of an unaligned checkpoint, replayed before any new input or output. */
  readonly channels: RestoredChannelState | null;
}

/**
 * Keys are `<edgeId>:<producer>` for input channels and `<edgeId>:<channel>` for output channels.
 * When the parallelism changed, a subtask gets every old subtask's channel state of its vertex and
 * keeps the records that are now its own (by key group, or an even share for rebalance edges).
 */
export interface RestoredChannelState {
  readonly rescaled: boolean;
  readonly inputs: ReadonlyArray<{ readonly key: string; readonly handle: ChannelStateHandle }>;
  readonly outputs: ReadonlyArray<{ readonly key: string; readonly handle: ChannelStateHandle }>;
}

export interface TaskDeployment {
  readonly vertexId: string;
  readonly subtask: number;
  /** Source subtasks: the splits of a fresh start (a restore brings them in operator state). */
  readonly splits: unknown[];
  readonly restore: TaskRestoreState | null;
  /** Fault injection: fail this subtask after it has taken this many records (or at its end of input). */
  readonly failAfterRecords?: number;
}

export interface RemoteChannelEndpoint {
  readonly edgeId: number;
  readonly producer: number;
  readonly consumer: number;
  readonly role: 'output' | 'input';
  readonly port: MessagePort;
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

export interface TaskMetrics {
  readonly vertexId: string;
  readonly subtask: number;
  readonly recordsIn: number;
  readonly recordsOut: number;
  /** Milliseconds the task has spent blocked on its outputs (backpressure) in this attempt. */
  readonly backpressure: number;
  readonly activity: string;
  /** The activity without its duration, and since when (ms since the epoch): a TaskManager that stops answering is described from its last report. */
  readonly activityBase?: string;
  readonly activitySince?: number;
  /** Source subtasks: their reader's own figures (e.g. CDC snapshot rows read, binlog lag). */
  readonly source?: Record<string, number>;
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
  | { readonly type: 'describe'; readonly attempt: number; readonly requestId: number }
  /** From a source's split enumerator to one of its readers; ordered with the checkpoint triggers. */
  | { readonly type: 'source-splits'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly splits: unknown[]; readonly noMoreSplits: boolean }
  | { readonly type: 'source-event'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly event: unknown }
  /** Liveness: the TaskManager answers from its event loop; one that stops answering is lost. */
  | { readonly type: 'heartbeat'; readonly seq: number }
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
      readonly reason: string;
      /** Whether the decline counts against the tolerable failed checkpoints (a storage error does, being overtaken does not). */
      readonly counts: boolean;
    }
  | { readonly type: 'metrics'; readonly attempt: number; readonly tasks: TaskMetrics[] }
  | { readonly type: 'described'; readonly requestId: number; readonly tasks: TaskMetrics[] }
  /** A log line of a TaskManager or one of its subtasks (with job id, vertex and subtask in the fields), written by the JobMaster's logger. */
  | { readonly type: 'log'; readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly message: string; readonly fields: Record<string, unknown> }
  /** From a source reader to its split enumerator. */
  | { readonly type: 'split-request'; readonly attempt: number; readonly vertexId: string; readonly subtask: number }
  | { readonly type: 'reader-event'; readonly attempt: number; readonly vertexId: string; readonly subtask: number; readonly event: unknown };

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
