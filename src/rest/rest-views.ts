// The JSON bodies of the REST API, on Flink's field names where they correspond. The builders
// (job-views.ts, checkpoint-views.ts, rest-server.ts) return these types, and both clients read
// them: the CLI (src/cli/) as TypeScript, the dashboard (web/) through JSDoc imports. So a field
// renamed here fails the type check of all three.
//
// web/jsconfig.json type-checks this file for the browser: import only types, and only from files
// that need nothing of Node (no node: modules, no process or Buffer), directly or through theirs.
import type { ConsistencyMode } from '../config/consistency-mode.ts';
import type { CheckpointStatus } from '../coordinator/checkpoint-status.ts';
import type { JobStatus } from '../coordinator/job-status.ts';
import type { TaskStatus } from '../network/task-status.ts';

export type { CheckpointStatus, ConsistencyMode, JobStatus, TaskStatus };

/** The body of every 4xx and 5xx answer (and of a refused request). */
export interface ErrorView {
  readonly errors: string[];
}

/** GET /overview: how many jobs are in which state. */
export interface OverviewView {
  /** Running, restarting or not yet started. */
  readonly 'jobs-running': number;
  readonly 'jobs-finished': number;
  readonly 'jobs-cancelled': number;
  readonly 'jobs-failed': number;
}

/** GET /jobs. */
export interface JobsListView {
  readonly jobs: ReadonlyArray<{ readonly id: string; readonly status: JobStatus }>;
}

/** A job in GET /jobs/overview, and the head of GET /jobs/:id (Flink's JobDetailsInfo). */
export interface JobSummaryView {
  readonly jid: string;
  /** The name of the (first) source. */
  readonly name: string;
  readonly state: JobStatus;
  readonly 'start-time': number;
  /** -1: a job that answers has not ended. */
  readonly 'end-time': number;
  readonly duration: number;
  /** The JobManager's clock when it answered: rates are taken between two answers' `now`. */
  readonly now: number;
  readonly restarts: number;
}

/** GET /jobs/overview. */
export interface JobsOverviewView {
  readonly jobs: readonly JobSummaryView[];
}

/** GET /jobs/:id. */
export interface JobDetailsView extends JobSummaryView {
  readonly vertices: readonly VertexView[];
}

/** A vertex of the job graph: a chain of operators run by `parallelism` subtasks. */
export interface VertexView {
  readonly id: string;
  readonly name: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly operators: readonly OperatorView[];
  readonly inputs: readonly VertexInputView[];
  /** Sums over the subtasks. */
  readonly metrics: RecordCountsView;
  readonly subtasks: readonly SubtaskView[];
  /** The split enumerator's figures (e.g. CDC snapshot progress), when the source has one that reports. */
  readonly 'source-progress'?: Readonly<Record<string, number>>;
}

export interface OperatorView {
  readonly id: string;
  readonly uid: string;
  readonly name: string;
  /** `source`, `map`, `flatMap`, `filter`, `keyed-process`, `reduce`, `sink`. */
  readonly kind: string;
}

export interface VertexInputView {
  /** The upstream vertex. */
  readonly id: string;
  /** The partitioner: FORWARD, REBALANCE, BROADCAST, HASH. */
  readonly ship_strategy: string;
}

export interface RecordCountsView {
  readonly 'read-records': number;
  readonly 'write-records': number;
}

export interface SubtaskView extends RecordCountsView {
  readonly subtask: number;
  readonly status: TaskStatus;
  /** Cumulative in this attempt: the share of time blocked is its growth between two polls. */
  readonly 'backpressured-ms': number;
  readonly activity: string;
  /** Source subtasks: their reader's own figures (e.g. CDC rows emitted, binlog lag). */
  readonly source?: Readonly<Record<string, number>>;
}

/** GET /jobs/:id/exceptions. */
export interface JobExceptionsView {
  readonly exceptionHistory: { readonly entries: readonly ExceptionView[]; readonly truncated: boolean };
  readonly restarts: number;
}

export interface ExceptionView {
  readonly exceptionName: string;
  readonly stacktrace: string;
  readonly timestamp: number;
  /** The vertex whose subtask failed, if one did. */
  readonly taskName: string | null;
  readonly attempt: number;
  /** Whether the job restarted after it. */
  readonly restarted: boolean;
}

/** min, max, average and percentiles of one figure over the checkpoints (or subtasks) counted. */
export interface StatisticsView {
  readonly min: number;
  readonly max: number;
  readonly avg: number;
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  readonly p999: number;
}

/** One checkpoint or savepoint in GET /jobs/:id/checkpoints (Flink's CheckpointStatistics). */
export interface CheckpointView {
  readonly className: 'completed' | 'failed' | 'in_progress';
  readonly id: number;
  readonly status: CheckpointStatus;
  readonly is_savepoint: boolean;
  readonly checkpoint_type: 'CHECKPOINT' | 'UNALIGNED_CHECKPOINT' | 'SAVEPOINT';
  readonly trigger_timestamp: number;
  readonly latest_ack_timestamp: number;
  readonly checkpointed_size: number;
  readonly state_size: number;
  readonly end_to_end_duration: number;
  readonly alignment_buffered: number;
  /** In-flight bytes taken in while barriers aligned, and stored with unaligned checkpoints. */
  readonly processed_data: number;
  readonly persisted_data: number;
  readonly num_subtasks: number;
  readonly num_acknowledged_subtasks: number;
  readonly unaligned: boolean;
  /** Completed ones: their directory. */
  readonly external_path?: string;
  readonly discarded?: boolean;
  /** Failed ones: when and why, and what may help (null when nothing is known to). */
  readonly failure_timestamp?: number;
  readonly failure_message?: string;
  readonly failure_hint?: string | null;
}

/** GET /jobs/:id/checkpoints. */
export interface CheckpointsOverviewView {
  readonly counts: {
    readonly restored: number;
    readonly total: number;
    readonly in_progress: number;
    readonly completed: number;
    readonly failed: number;
  };
  /** Over the completed checkpoints kept. */
  readonly summary: {
    readonly checkpointed_size: StatisticsView;
    readonly state_size: StatisticsView;
    readonly end_to_end_duration: StatisticsView;
    readonly processed_data: StatisticsView;
    readonly persisted_data: StatisticsView;
  };
  readonly latest: {
    readonly completed: CheckpointView | null;
    readonly savepoint: CheckpointView | null;
    readonly failed: CheckpointView | null;
    readonly restored: RestoredCheckpointView | null;
  };
  /** Newest first; the JobManager keeps the last 100. */
  readonly history: readonly CheckpointView[];
}

export interface RestoredCheckpointView {
  readonly id: number;
  readonly restore_timestamp: number;
  readonly is_savepoint: boolean;
  readonly external_path: string;
}

/** GET /jobs/:id/checkpoints/config: the job's checkpointing settings. Durations in ms. */
export interface CheckpointConfigView {
  readonly mode: ConsistencyMode;
  /** -1: periodic checkpoints are off. */
  readonly interval: number;
  readonly timeout: number;
  readonly min_pause: number;
  readonly max_concurrent: number;
  readonly externalization: { readonly enabled: boolean; readonly delete_on_cancellation: boolean };
  readonly state_backend: string;
  readonly checkpoint_storage: string;
  readonly unaligned_checkpoints: boolean;
  readonly tolerable_failed_checkpoints: number;
  readonly aligned_checkpoint_timeout: number;
  readonly checkpoints_after_tasks_finish: boolean;
  /** null: the interval does not change while sources are backlogged. */
  readonly interval_during_backlog: number | null;
  readonly checkpoint_directory: string;
  /** Where savepoints go when no target directory is given (execution.checkpointing.savepoint-dir). */
  readonly savepoint_directory: string | null;
}

/** GET /jobs/:id/checkpoints/details/:cid: the checkpoint with per-vertex summaries, by vertex id. */
export interface CheckpointDetailsView extends CheckpointView {
  readonly tasks: Readonly<Record<string, CheckpointVertexView>>;
}

export interface CheckpointVertexView {
  readonly id: string;
  readonly name: string;
  readonly status: CheckpointStatus;
  readonly num_subtasks: number;
  readonly num_acknowledged_subtasks: number;
  readonly state_size: number;
  readonly end_to_end_duration: number;
  readonly processed_data: number;
  readonly persisted_data: number;
}

/** GET /jobs/:id/checkpoints/details/:cid/subtasks/:vertex: per-subtask figures of one vertex. */
export interface CheckpointSubtasksView {
  readonly id: number;
  readonly status: CheckpointStatus;
  /** Over the subtasks that acknowledged. */
  readonly summary: {
    readonly checkpoint_duration: { readonly sync: StatisticsView; readonly async: StatisticsView };
    readonly alignment: { readonly processed: StatisticsView; readonly persisted: StatisticsView; readonly duration: StatisticsView };
    readonly start_delay: StatisticsView;
    readonly state_size: StatisticsView;
  };
  /** One per subtask, by index. */
  readonly subtasks: readonly SubtaskCheckpointView[];
}

export type SubtaskCheckpointView = AcknowledgedSubtaskCheckpointView | { readonly index: number; readonly status: 'pending_or_failed' };

export interface AcknowledgedSubtaskCheckpointView {
  readonly index: number;
  readonly status: 'completed';
  readonly ack_timestamp: number;
  readonly end_to_end_duration: number;
  readonly state_size: number;
  readonly checkpoint: { readonly sync: number; readonly async: number };
  readonly alignment: { readonly processed: number; readonly persisted: number; readonly duration: number };
  readonly start_delay: number;
  readonly unaligned_checkpoint: boolean;
}

/** 202 to POST /jobs/:id/savepoints and POST /jobs/:id/stop: the trigger id to poll. */
export interface SavepointTriggerView {
  readonly 'request-id': string;
}

/** GET /jobs/:id/savepoints/:trigger: a triggered savepoint or stop, and once it completed, its outcome. */
export interface OperationStatusView {
  readonly status: { readonly id: 'IN_PROGRESS' | 'COMPLETED' };
  readonly operation?: { readonly location: string; readonly 'failure-cause'?: never } | { readonly 'failure-cause': FailureCauseView; readonly location?: never };
}

export interface FailureCauseView {
  readonly class: string;
  readonly 'stack-trace': string;
}

/** 202 to PATCH /jobs/:id?mode=cancel: an empty object (the job is being cancelled). */
export type CancelView = Readonly<Record<string, never>>;
