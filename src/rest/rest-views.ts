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

/**
 * Flink's ExecutionState: a subtask's state where Flink's fields carry it (vertex `status`, a
 * vertex's `tasks`, the subtasks of GET /jobs/:id/vertices/:vid). weir's own `subtasks[].status`
 * of GET /jobs/:id keeps weir's finer TaskStatus (it has `end-of-data`, which Flink counts as RUNNING).
 */
export type ExecutionState = 'CREATED' | 'SCHEDULED' | 'DEPLOYING' | 'RUNNING' | 'FINISHED' | 'CANCELING' | 'CANCELED' | 'FAILED' | 'RECONCILING' | 'INITIALIZING';

/** How many subtasks are in each state, under Flink's lower-case names (JobDetails' `tasks`). */
export type TaskCountsView = { readonly total: number } & { readonly [K in Lowercase<ExecutionState>]: number };

/** The body of every 4xx and 5xx answer (and of a refused request). */
export interface ErrorView {
  readonly errors: string[];
}

/** GET /overview: how many jobs are in which state (Flink's ClusterOverviewWithVersion). */
export interface OverviewView {
  /** Running, restarting or not yet started. */
  readonly 'jobs-running': number;
  readonly 'jobs-finished': number;
  readonly 'jobs-cancelled': number;
  readonly 'jobs-failed': number;
  /** `weir-stream <version>`: what Flink's clients show as the cluster's version. */
  readonly 'flink-version': string;
  readonly 'flink-commit': string;
  /** A JobManager process (`weir jobmanager`): its TaskManager processes and their slots. */
  readonly taskmanagers?: number;
  readonly 'slots-total'?: number;
  readonly 'slots-available'?: number;
  /** A JobManager with high availability: its part (standby, recovering, leading, closed), the leader it knows and that leader's epoch. */
  readonly 'ha-role'?: string;
  readonly 'ha-leader'?: string | null;
  readonly 'ha-leader-epoch'?: number | null;
  readonly 'ha-cluster-id'?: string;
}

/** GET /jobs. */
export interface JobsListView {
  readonly jobs: ReadonlyArray<{ readonly id: string; readonly status: JobStatus }>;
}

/** A job in GET /jobs/overview (Flink's JobDetails), and the head of GET /jobs/:id (Flink's JobDetailsInfo). */
export interface JobSummaryView {
  readonly jid: string;
  /** env.setJobName or `weir run --name` (pipeline.name); else the name of the (first) source. */
  readonly name: string;
  readonly state: JobStatus;
  readonly 'start-time': number;
  /** -1 while the job has not ended. */
  readonly 'end-time': number;
  readonly duration: number;
  /** The last change weir records: the start, the latest failure (restart) or the end. */
  readonly 'last-modification': number;
  /** Subtasks per state, as Flink's clients parse them (every state present). */
  readonly tasks: TaskCountsView;
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
  readonly isStoppable: boolean;
  readonly maxParallelism: number;
  /** Subtasks per state, under Flink's ExecutionState names. */
  readonly 'status-counts': Readonly<Record<ExecutionState, number>>;
  /** When the job entered each state weir records (Flink's `timestamps`): CREATED, and a terminal state once reached. */
  readonly timestamps: Readonly<Partial<Record<JobStatus, number>>>;
  /** The same as GET /jobs/:id/plan's `plan`. */
  readonly plan: JobPlanView['plan'];
  readonly vertices: readonly VertexView[];
}

/** A vertex of the job graph: a chain of operators run by `parallelism` subtasks. */
export interface VertexView {
  readonly id: string;
  readonly name: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  /** The vertex's state from its subtasks' (Flink's aggregate: FINISHED when all are, else FAILED, RUNNING, ...). */
  readonly status: ExecutionState;
  /** Subtasks per state, under Flink's ExecutionState names. */
  readonly tasks: Readonly<Record<ExecutionState, number>>;
  /** When the current attempt's subtasks were deployed (weir keeps no per-subtask times). */
  readonly 'start-time': number;
  readonly 'end-time': number;
  readonly duration: number;
  readonly operators: readonly OperatorView[];
  readonly inputs: readonly VertexInputView[];
  /** Sums over the subtasks. */
  readonly metrics: IOMetricsView;
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

/**
 * Flink's IOMetricsInfo. weir counts records, not bytes (the byte figures are 0 and say so with
 * `*-bytes-complete: false`), and measures the time a subtask is blocked on its outputs, not its
 * idle time (0): busy is the rest.
 */
export interface IOMetricsView extends RecordCountsView {
  readonly 'read-bytes': number;
  readonly 'write-bytes': number;
  readonly 'read-records-complete': boolean;
  readonly 'write-records-complete': boolean;
  readonly 'read-bytes-complete': boolean;
  readonly 'write-bytes-complete': boolean;
  readonly 'accumulated-backpressured-time': number;
  readonly 'accumulated-idle-time': number;
  readonly 'accumulated-busy-time': number;
}

export interface SubtaskView extends RecordCountsView {
  readonly subtask: number;
  readonly status: TaskStatus;
  /** Cumulative in this attempt: the share of time blocked is its growth between two polls. */
  readonly 'backpressured-ms': number;
  /** Bytes of record buffers received / sent between threads (0 within one thread, where records are not serialized). */
  readonly 'read-bytes': number;
  readonly 'write-bytes': number;
  /** Where its time goes, ms per second over the recent minute; the three add up to 1000 while it runs. */
  readonly busyTimeMsPerSecond: number;
  readonly idleTimeMsPerSecond: number;
  readonly backPressuredTimeMsPerSecond: number;
  /** The share of its input / output channels' buffers in use, 0..1. */
  readonly inPoolUsage: number;
  readonly outPoolUsage: number;
  /** With buffer debloating on: what each input channel may hold in flight (bytes between TaskManagers, records within one). */
  readonly debloated?: { readonly bytes?: number; readonly records?: number };
  readonly activity: string;
  /** Source subtasks: their reader's own figures (e.g. CDC rows emitted, binlog lag). */
  readonly source?: Readonly<Record<string, number>>;
  /** Its event time: the input watermark in ms since the epoch (a source's: its own), 'end' once the input ended, null before the first. */
  readonly watermark: number | 'end' | null;
  /** Records its window operators dropped as too late (numLateRecordsDropped, summed). */
  readonly lateRecordsDropped: number;
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
  /** The vertex whose subtask failed; absent when no subtask did (as Flink leaves it out). */
  readonly taskName?: string;
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

/**
 * Flink's spelling of the consistency mode, as its CheckpointConfigInfo writes and parses it
 * (lower case with an underscore). `at_most_once` is weir's own: a Flink JobManager has no such
 * mode (it answers 404 for a job without checkpoints).
 */
export type ProcessingModeView = 'exactly_once' | 'at_least_once' | 'at_most_once';

/** GET /jobs/:id/checkpoints/config: the job's checkpointing settings. Durations in ms. */
export interface CheckpointConfigView {
  readonly mode: ProcessingModeView;
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

/** One vertex in a checkpoint's `tasks` (Flink's TaskCheckpointStatistics; the map's key is the vertex id). */
export interface CheckpointVertexView {
  /** The checkpoint's id, as in Flink. */
  readonly id: number;
  readonly vertex_id: string;
  readonly name: string;
  readonly latest_ack_timestamp: number;
  readonly checkpointed_size: number;
  readonly alignment_buffered: number;
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
    readonly checkpointed_size: StatisticsView;
  };
  /** One per subtask, by index. */
  readonly subtasks: readonly SubtaskCheckpointView[];
}

/** Flink's SubtaskCheckpointStatistics, told apart by `className` as Flink's clients do. */
export type SubtaskCheckpointView = AcknowledgedSubtaskCheckpointView | { readonly className: 'pending'; readonly index: number; readonly status: 'pending_or_failed' };

export interface AcknowledgedSubtaskCheckpointView {
  readonly className: 'completed';
  readonly index: number;
  readonly status: 'completed';
  readonly checkpointed_size: number;
  readonly aborted: boolean;
  readonly ack_timestamp: number;
  readonly end_to_end_duration: number;
  readonly state_size: number;
  readonly checkpoint: { readonly sync: number; readonly async: number };
  readonly alignment: { readonly processed: number; readonly persisted: number; readonly duration: number };
  readonly start_delay: number;
  readonly unaligned_checkpoint: boolean;
}

/** 202 to POST /jobs/:id/savepoints, POST /jobs/:id/stop and POST /jobs/:id/checkpoints: the trigger id to poll. */
export interface SavepointTriggerView {
  readonly 'request-id': string;
}

/** GET /jobs/:id/savepoints/:trigger: a triggered savepoint or stop, and once it completed, its outcome. */
export interface OperationStatusView {
  readonly status: { readonly id: 'IN_PROGRESS' | 'COMPLETED' };
  readonly operation?: { readonly location: string; readonly 'failure-cause'?: never } | { readonly 'failure-cause': FailureCauseView; readonly location?: never };
}

/** GET /jobs/:id/checkpoints/:trigger: a manually triggered checkpoint (Flink's CheckpointInfo, and weir's `location`). */
export interface CheckpointOperationStatusView {
  readonly status: { readonly id: 'IN_PROGRESS' | 'COMPLETED' };
  readonly operation?:
    | { readonly checkpointId: number; readonly location: string; readonly failureCause?: never }
    | { readonly failureCause: FailureCauseView; readonly checkpointId?: never; readonly location?: never };
}

export interface FailureCauseView {
  readonly class: string;
  readonly 'stack-trace': string;
}

/** 202 to PATCH /jobs/:id?mode=cancel: an empty object (the job is being cancelled). */
export type CancelView = Readonly<Record<string, never>>;

/** GET /jobs/:id/vertices/:vid (Flink's JobVertexDetailsInfo). */
export interface VertexDetailsView {
  readonly id: string;
  readonly name: string;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly now: number;
  readonly subtasks: readonly SubtaskAttemptView[];
}

/** A subtask's current attempt (Flink's SubtaskExecutionAttemptDetailsInfo). */
export interface SubtaskAttemptView {
  readonly subtask: number;
  readonly status: ExecutionState;
  /** The job's attempt: weir redeploys every subtask on a restart. */
  readonly attempt: number;
  /** Where it runs: its TaskManager process's host in a cluster; `localhost` for the threads of `weir run`. */
  readonly host: string;
  readonly 'start-time': number;
  readonly 'end-time': number;
  readonly duration: number;
  readonly metrics: IOMetricsView;
}

/** Flink's backpressure level: ok up to 10 % of the time blocked, low up to 50 %, high above. */
export type BackPressureLevel = 'ok' | 'low' | 'high';

/** GET /jobs/:id/vertices/:vid/backpressure (Flink's JobVertexBackPressureInfo). */
export interface BackPressureView {
  readonly status: 'ok';
  /** Its most backpressured subtask's. */
  readonly backpressureLevel: BackPressureLevel;
  readonly 'end-timestamp': number;
  readonly subtasks: readonly SubtaskBackPressureView[];
}

export interface SubtaskBackPressureView {
  readonly subtask: number;
  readonly 'attempt-number': number;
  readonly backpressureLevel: BackPressureLevel;
  /** The share of time blocked on its outputs since the previous sample (or over the attempt, at the first). */
  readonly ratio: number;
  /** weir does not measure idle time yet: 0, and busy is the rest. */
  readonly idleRatio: number;
  readonly busyRatio: number;
}

/** One entry of Flink's metric queries: `value` only when asked for with `?get=` (Flink's values are strings). */
export interface MetricView {
  readonly id: string;
  readonly value?: string;
}

/** One entry of Flink's aggregated metric queries (`?get=...&agg=min,max,...`); without `get`, only ids. */
export interface AggregatedMetricView {
  readonly id: string;
  readonly min?: number;
  readonly max?: number;
  readonly avg?: number;
  readonly sum?: number;
  readonly skew?: number;
}

/** GET /jobs/:id/config (Flink's JobConfigInfo). */
export interface JobConfigView {
  readonly jid: string;
  readonly name: string;
  readonly 'execution-config': {
    readonly 'execution-mode': 'PIPELINED';
    readonly 'restart-strategy': string;
    readonly 'job-parallelism': number;
    readonly 'object-reuse-mode': boolean;
    /** The job's effective configuration, values as strings (unset ones left out). */
    readonly 'user-config': Readonly<Record<string, string>>;
  };
}

/** GET /jobs/:id/plan (Flink's JobPlanInfo): the job graph as Flink's dashboard draws it. */
export interface JobPlanView {
  readonly plan: {
    readonly jid: string;
    readonly name: string;
    readonly type: 'STREAMING';
    readonly nodes: readonly PlanNodeView[];
  };
}

export interface PlanNodeView {
  readonly id: string;
  readonly parallelism: number;
  /** Flink leaves this empty for streaming jobs; weir names the chain's operator kinds. */
  readonly operator: string;
  readonly operator_strategy: string;
  /** The chained operators' names, as Flink's " -> " chain. */
  readonly description: string;
  readonly inputs?: ReadonlyArray<{ readonly num: number; readonly id: string; readonly ship_strategy: string; readonly exchange: 'pipelined_bounded' }>;
  readonly optimizer_properties: Readonly<Record<string, never>>;
}

/** GET /config (Flink's DashboardConfiguration). */
export interface DashboardConfigView {
  readonly 'refresh-interval': number;
  readonly 'timezone-name': string;
  /** Milliseconds east of UTC, as Flink. */
  readonly 'timezone-offset': number;
  /** `weir-stream <version>`. */
  readonly 'flink-version': string;
  readonly 'flink-revision': string;
  readonly features: { readonly 'web-submit': boolean; readonly 'web-cancel': boolean; readonly 'web-rescale': boolean; readonly 'web-history': boolean };
}

/** A TaskManager process of GET /taskmanagers (Flink's TaskManagerInfo, with weir's host, hostname and pid). */
export interface TaskManagerInfoView {
  /** 32 hex characters, as Flink's clients expect: the hash of the resource id unless that is such an id already. */
  readonly id: string;
  /** The TaskManager's resource id in the cluster (taskmanager.resource-id, `weir taskmanager --id`). */
  readonly resourceId: string;
  readonly path: string;
  readonly host: string;
  readonly hostname: string;
  readonly pid: number;
  readonly dataPort: number;
  readonly jmxPort: number;
  /** When the JobManager last heard its heartbeat (ms since the epoch), despite Flink's name. */
  readonly timeSinceLastHeartbeat: number;
  readonly slotsNumber: number;
  readonly freeSlots: number;
  readonly totalResource: ResourceView;
  readonly freeResource: ResourceView;
  readonly hardware: { readonly cpuCores: number; readonly physicalMemory: number; readonly freeMemory: number; readonly managedMemory: number };
  readonly memoryConfiguration: Readonly<Record<string, number>>;
  readonly blocked: boolean;
  /** weir's: its keyed state on local disk (lmdb backend), its running subtasks' added up; null when they keep none there. */
  readonly localState: { readonly localBytes: number; readonly cacheHits: number; readonly cacheMisses: number; readonly cacheHitRate: number | null } | null;
}

export interface ResourceView {
  readonly cpuCores: number;
  readonly taskHeapMemory: number;
  readonly taskOffHeapMemory: number;
  readonly managedMemory: number;
  readonly networkMemory: number;
  readonly extendedResources: Readonly<Record<string, number>>;
}

/** GET /taskmanagers. */
export interface TaskManagersView {
  readonly taskmanagers: readonly TaskManagerInfoView[];
}

/** GET /taskmanagers/:id (Flink's TaskManagerDetailsInfo): the info, the slots' allocations, and memory figures. */
export interface TaskManagerDetailsView extends TaskManagerInfoView {
  readonly allocatedSlots: ReadonlyArray<{ readonly index: number; readonly allocation: string }>;
  readonly metrics: Readonly<Record<string, number | readonly unknown[]>>;
}

/** GET /jobmanager/config (Flink's ClusterConfigurationInfo): every effective key, secrets left out. */
export type JobManagerConfigView = ReadonlyArray<{ readonly key: string; readonly value: string }>;

/** GET /jobs/:id/pipeline (weir's own, pipeline-view.ts): a pipeline's source tables. */
export interface PipelineView {
  /** The newest report the figures come from (ms since the epoch): rates are taken between two views' `reported-at`. */
  readonly 'reported-at': number;
  /** The source's initial snapshot (its split enumerator's figures); null without one. */
  readonly snapshot: PipelineSnapshotView | null;
  /** Sorted by table. */
  readonly tables: readonly PipelineTableView[];
}

export interface PipelineSnapshotView {
  readonly tables: number;
  readonly 'tables-done': number;
  readonly rows: number;
  readonly done: boolean;
}

export interface PipelineTableView {
  /** The source table, `db.table` or `schema.table`. */
  readonly table: string;
  readonly 'snapshot-rows': number;
  readonly inserts: number;
  readonly updates: number;
  readonly deletes: number;
  /** Inserts, updates and deletes read from the log. */
  readonly changes: number;
  /** The sink tables its rows go to (after routes), sorted. */
  readonly 'sink-tables': readonly string[];
  readonly 'last-schema-change': PipelineSchemaChangeView | null;
}

export interface PipelineSchemaChangeView {
  /** The source's kind: add.column, drop.column, rename.column, alter.column.type, truncate.table, drop.table, create.table. */
  readonly kind: string;
  /** When the source committed it (ms since the epoch). */
  readonly at: number;
  /**
   * Database sinks: held (a sink table it goes to holds a schema change until the transactions
   * before it commit), applied, skipped (the behaviour or include/exclude left it out), pending
   * (not at the sink yet). Other sinks: sent (files and print write it as a line if its kind is
   * kept; Kafka and JetStream write no schema change).
   */
  readonly state: 'held' | 'applied' | 'skipped' | 'pending' | 'sent';
}
