import type { CheckpointFailureCode } from '../checkpoint/checkpoint-failure-reason.ts';
import type { TaskStateSnapshot } from '../checkpoint/state-handles.ts';
import type { ActivityReport } from '../network/task-activity.ts';
import type { TaskStatus } from '../network/task-status.ts';
import type { WireWatermark } from '../network/wire-watermark.ts';
import type { LocalStateFigures } from '../state/keyed-state-backend.ts';
import type { GatewayMethods } from './gateway-proxy.ts';
import type { SerializedError } from './serialized-error.ts';
import type { OfAttempt, OfSubtask } from './task-executor-gateway.ts';

/**
 * What a slot executor (and its subtasks) calls on the JobMaster (Flink's JobMasterGateway), one
 * way. `tm` is the slot's index, named "TaskManager <tm>" in what users read.
 */
export interface JobMasterGateway {
  /** The executor has built the job graph and takes deploys. */
  ready(p: { readonly tm: number }): void;
  heartbeat(p: { readonly tm: number; readonly seq: number }): void;
  /** Every subtask of this attempt (or an older one) has stopped: the next attempt may be deployed. */
  canceled(p: OfAttempt & { readonly tm: number }): void;
  /** A deploy failed before its subtasks ran (attempt -1: the executor could not even start). */
  deployFailed(p: OfAttempt & { readonly tm: number; readonly error: SerializedError }): void;
  updateTaskStatus(p: TaskStatusUpdate): void;
  acknowledgeCheckpoint(p: CheckpointAcknowledgement): void;
  declineCheckpoint(p: CheckpointDecline): void;
  reportMetrics(p: OfAttempt & { readonly tasks: TaskMetrics[] }): void;
  /** The answer to TaskExecutorGateway.describe. */
  described(p: { readonly requestId: number; readonly tasks: TaskMetrics[] }): void;
  /** A log line of a slot executor or one of its subtasks (with job id, vertex and subtask in the fields), written by the JobMaster's logger. */
  log(p: { readonly level: 'debug' | 'info' | 'warn' | 'error'; readonly message: string; readonly fields: Record<string, unknown> }): void;
  /** From a source reader to its split enumerator. */
  requestSplit(p: OfSubtask): void;
  sendReaderEvent(p: OfSubtask & { readonly event: unknown }): void;
  /** Splits the enumerator assigned that reached a subtask no longer running: never read (an at-most-once restart reads them). */
  splitsUndelivered(p: OfSubtask & { readonly splits: unknown[] }): void;
  /** Watermark alignment: a source reader's watermark for its group, every update interval. */
  reportWatermark(p: OfSubtask & { readonly group: string; readonly watermark: WireWatermark }): void;
}

export const JOB_MASTER_METHODS: GatewayMethods<JobMasterGateway> = {
  ready: true,
  heartbeat: true,
  canceled: true,
  deployFailed: true,
  updateTaskStatus: true,
  acknowledgeCheckpoint: true,
  declineCheckpoint: true,
  reportMetrics: true,
  described: true,
  log: true,
  requestSplit: true,
  sendReaderEvent: true,
  splitsUndelivered: true,
  reportWatermark: true,
};

export interface TaskStatusUpdate extends OfSubtask {
  readonly status: TaskStatus;
  readonly error?: SerializedError;
  /** Source subtasks that fail or are cancelled: their readers' positions (at-most-once restarts from them). */
  readonly positions?: unknown[];
}

export interface CheckpointAcknowledgement extends OfSubtask {
  readonly checkpointId: number;
  readonly state: TaskStateSnapshot;
  readonly figures: TaskFigures;
}

export interface CheckpointDecline extends OfSubtask {
  readonly checkpointId: number;
  readonly code: CheckpointFailureCode;
  readonly reason: string;
}

/** A subtask's figures of one checkpoint. */
export interface TaskFigures {
  readonly syncMs: number;
  readonly asyncMs: number;
  readonly alignmentMs: number;
  readonly startDelayMs: number;
  readonly processedBytes: number;
  readonly persistedBytes: number;
  readonly stateBytes: number;
  /**
   * Bytes this checkpoint wrote (Flink's checkpointed size): with incremental checkpoints only the
   * new shared files, which stateBytes (the full size, every file it references) exceeds; absent
   * (an older TaskManager): stateBytes.
   */
  readonly checkpointedBytes?: number;
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
  /**
   * With buffer debloating on: what each input channel may hold in flight (Flink's
   * debloatedBufferSize): bytes on channels between TaskManagers, records on those within one.
   */
  readonly debloated?: { readonly bytes?: number; readonly records?: number };
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
  /** Keyed operators on a backend with local disk (lmdb): the store's size and cache figures. */
  readonly state?: LocalStateFigures;
  /** The operator's own figures (`figure` or `figure:subject`: a pipeline's routes and schema changes, a sink's held changes). */
  readonly figures?: Record<string, number>;
}
