import { isTerminal } from '../coordinator/job-status.ts';
import type { CheckpointStats } from '../coordinator/checkpoint-stats.ts';
import type { JobMaster } from '../coordinator/job-master.ts';
import type { TaskRates } from '../coordinator/task-rates.ts';
import { decodeWatermark } from '../network/wire-watermark.ts';
import { attemptStart } from './job-timeline.ts';
import type { JobRow, OperatorRow, TaskRow } from './metric-rows.ts';
import type { TaskManagerStateRow } from './task-manager-state.ts';

/** A figure's value in its base unit; undefined where the row has none (no checkpoint yet, not a window operator). */
export type Value = number | undefined;

/**
 * The registry of the figures weir serves: each declared once, under Flink's name in its scope,
 * with how it is read from the job's views. The vocabularies are derived from it: Flink's
 * Prometheus names (flink-metrics.ts), Flink's REST metric query (rest-metrics.ts), and weir's own
 * Prometheus names (weir-metrics.ts).
 */
export interface Figure<Row> {
  readonly value: (row: Row) => Value;
  /** Absent for a figure only weir's vocabulary has. */
  readonly flink?: FlinkName;
  /** Served by the REST metric query (`?get=`); absent: only on /metrics. */
  readonly rest?: RestName<Row>;
  readonly weir?: WeirName<Row>;
}

export interface FlinkName {
  /** The metric's name in its scope, and any other name Flink serves it under too. */
  readonly name: string;
  readonly alias?: string;
  readonly help: string;
  /** How Flink writes the value; default: as it is, no sample where undefined. */
  readonly write?: (v: Value) => Value;
}

export interface RestName<Row> {
  /** Default: the Flink name. */
  readonly id?: string;
  /** Default: the Flink write. */
  readonly write?: (v: Value) => number | string | undefined;
  /** A value of its own where the REST API has always computed the figure differently. */
  readonly value?: (row: Row) => Value;
}

export interface WeirName<Row> {
  readonly name: string;
  readonly help: string;
  /** Prometheus counters where the figure counts up. */
  readonly type: 'gauge' | 'counter';
  /** Default: the value as it is. */
  readonly write?: (v: Value, row: Row) => Value;
}

/** As Flink's: -1 for a figure of the latest checkpoint while there is none. */
const orNone = (v: Value) => v ?? -1;
const rounded = (v: Value) => Math.round(v ?? 0);
/** weir's: seconds, 0 while there is none. */
const seconds = (v: Value) => (v ?? 0) / 1000;
const orZero = (v: Value) => v ?? 0;

/** A watermark as Flink's reporter exports it: a long (Long.MIN_VALUE before the first, Long.MAX_VALUE at the end). */
export const watermarkLong = (wm: Value): number => (wm === undefined || wm === -Infinity ? -9223372036854775808 : wm === Infinity ? 9223372036854775807 : Math.floor(wm));
/** Flink's currentInputWatermark before any watermark arrived (Long.MIN_VALUE), as its REST API writes it. */
export const NO_WATERMARK = '-9223372036854775808';
/** Flink's watermark at the end of input (Long.MAX_VALUE). */
export const END_WATERMARK = '9223372036854775807';
/** A watermark as Flink's REST API writes it: that long, as a string (exactly: the number would round). */
export const watermarkString = (wm: Value): string => (wm === undefined || wm === -Infinity ? NO_WATERMARK : wm === Infinity ? END_WATERMARK : String(Math.floor(wm)));

const counts = (m: JobMaster) => m.checkpoints.stats.counts;
const latest = (f: (s: CheckpointStats) => number) => (r: JobRow): Value => {
  const s = r.m.checkpoints.stats.latestCompleted();
  return s ? f(s) : undefined;
};
const sinceRunning = (m: JobMaster) => (m.runningSince !== undefined ? Date.now() - m.runningSince : undefined);

/** Scope jobmanager (labels: host): one figure over every job. */
export const JOBMANAGER_FIGURES: ReadonlyArray<Figure<readonly JobMaster[]>> = [
  { value: (all) => all.filter((m) => m.status === 'RUNNING').length, flink: { name: 'numRunningJobs', help: 'jobs RUNNING.' } },
];

/** Scope jobmanager_job: the checkpoint statistics, restarts and uptime. */
export const JOB_FIGURES: ReadonlyArray<Figure<JobRow>> = [
  { value: (r) => r.m.restarts, flink: { name: 'numRestarts', help: 'restarts since the job was submitted.' }, rest: {}, weir: { name: 'weir_job_restarts_total', type: 'counter', help: 'Restarts of the job.' } },
  {
    // Flink's UpTimeGauge: since the job last went RUNNING, 0 while it is not, -1 once it ended.
    value: (r) => sinceRunning(r.m) ?? (isTerminal(r.m.status) ? -1 : 0),
    flink: { name: 'uptime', help: 'ms the job has been RUNNING without interruption (0 while not RUNNING, -1 once ended).' },
    // The REST query's has always counted from the attempt's deployment, 0 once ended.
    rest: { value: (r) => (r.m.status === 'RUNNING' ? Date.now() - attemptStart(r.m) : 0) },
  },
  { value: (r) => sinceRunning(r.m) ?? 0, flink: { name: 'runningTime', help: 'ms since the job went RUNNING (0 while not RUNNING).' } },
  { value: (r) => counts(r.m).total, flink: { name: 'totalNumberOfCheckpoints', help: 'checkpoints triggered (in progress, completed, failed).' }, rest: {}, weir: { name: 'weir_checkpoints_total', type: 'counter', help: 'Checkpoints triggered.' } },
  { value: (r) => counts(r.m).completed, flink: { name: 'numberOfCompletedCheckpoints', help: 'checkpoints completed.' }, rest: {}, weir: { name: 'weir_checkpoints_completed_total', type: 'counter', help: 'Checkpoints completed.' } },
  { value: (r) => counts(r.m).failed, flink: { name: 'numberOfFailedCheckpoints', help: 'checkpoints failed.' }, rest: {}, weir: { name: 'weir_checkpoints_failed_total', type: 'counter', help: 'Checkpoints failed (expired or declined).' } },
  { value: (r) => counts(r.m).inProgress, flink: { name: 'numberOfInProgressCheckpoints', help: 'checkpoints in progress.' }, rest: {}, weir: { name: 'weir_checkpoints_in_progress', type: 'gauge', help: 'Checkpoints in flight.' } },
  {
    value: latest((s) => s.endToEndDuration),
    flink: { name: 'lastCheckpointDuration', help: 'ms the latest completed checkpoint took end to end (-1: none).', write: (v) => (v === undefined ? -1 : Math.round(v)) },
    rest: {},
    weir: { name: 'weir_last_checkpoint_duration_seconds', type: 'gauge', help: 'End-to-end duration of the latest completed checkpoint.', write: seconds },
  },
  // weir's checkpoints are full ones: the checkpointed size is the full size.
  { value: latest((s) => s.checkpointedSize), flink: { name: 'lastCheckpointSize', help: 'bytes the latest completed checkpoint wrote (incremental: only what changed; -1: none).', write: orNone }, rest: {} },
  { value: latest((s) => s.stateSize), flink: { name: 'lastCheckpointFullSize', help: 'bytes of state of the latest completed checkpoint (-1: none).', write: orNone }, weir: { name: 'weir_last_checkpoint_size_bytes', type: 'gauge', help: 'State size of the latest completed checkpoint.', write: orZero } },
  { value: latest((s) => s.processedData), flink: { name: 'lastCheckpointProcessedData', help: 'bytes processed during the alignment of the latest completed checkpoint (-1: none).', write: orNone } },
  {
    value: latest((s) => s.persistedData),
    flink: { name: 'lastCheckpointPersistedData', help: 'bytes of in-flight data persisted by the latest completed checkpoint (-1: none).', write: orNone },
    weir: { name: 'weir_last_checkpoint_persisted_bytes', type: 'gauge', help: 'In-flight data persisted by the latest completed checkpoint.', write: orZero },
  },
  { value: latest((s) => s.id), flink: { name: 'lastCompletedCheckpointId', help: 'id of the latest completed checkpoint (-1: none).', write: orNone }, rest: {} },
  { value: latest((s) => s.triggerTimestamp + s.endToEndDuration), flink: { name: 'lastCheckpointCompletedTimestamp', help: 'when the latest completed checkpoint completed, ms since the epoch (-1: none).', write: orNone } },
  { value: (r) => r.m.checkpoints.stats.latestRestored?.timestamp, flink: { name: 'lastCheckpointRestoreTimestamp', help: 'when the job last restored a checkpoint or savepoint, ms since the epoch (-1: never).', write: orNone }, rest: {} },
  // weir's own: Flink has no such figures.
  { value: (r) => (Date.now() - r.m.startedAt) / 1000, weir: { name: 'weir_job_uptime_seconds', type: 'gauge', help: 'Seconds since the job started.' } },
  { value: (r) => (r.m.status === 'RUNNING' ? 1 : 0), weir: { name: 'weir_job_running', type: 'gauge', help: '1 while the job is RUNNING.' } },
  { value: (r) => counts(r.m).restored, weir: { name: 'weir_checkpoints_restored_total', type: 'counter', help: 'Restores from a checkpoint or savepoint.' } },
];

const rate = (f: (r: TaskRates) => number) => (row: TaskRow): Value => (row.rates ? f(row.rates) : 0);
const task = (f: (t: NonNullable<TaskRow['t']>) => number) => (row: TaskRow): Value => (row.t ? f(row.t) : 0);
/** The REST query's time rates are whole milliseconds. */
const msRate = { write: rounded } as const;

/**
 * Scope taskmanager_job_task: a weir vertex is a Flink task (its chained operators), one row per
 * subtask. Declared in the order the REST query lists them.
 */
export const TASK_FIGURES: ReadonlyArray<Figure<TaskRow>> = [
  { value: task((t) => t.recordsIn), flink: { name: 'numRecordsIn', help: 'records the subtask took in (for sources: read).' }, rest: {}, weir: { name: 'weir_task_records_in_total', type: 'counter', help: 'Records taken in by a subtask (for sources: read).' } },
  { value: task((t) => t.recordsOut), flink: { name: 'numRecordsOut', help: 'records the subtask sent downstream.' }, rest: {}, weir: { name: 'weir_task_records_out_total', type: 'counter', help: 'Records sent downstream by a subtask.' } },
  { value: task((t) => t.bytesIn), flink: { name: 'numBytesIn', help: 'bytes of record buffers received from other threads (0 within one thread).' }, rest: {}, weir: { name: 'weir_task_bytes_in_total', type: 'counter', help: 'Bytes of record buffers received from other threads (in-thread channels pass buffers without bytes: 0).' } },
  { value: task((t) => t.bytesOut), flink: { name: 'numBytesOut', help: 'bytes of record buffers sent to other threads (0 within one thread).' }, rest: {}, weir: { name: 'weir_task_bytes_out_total', type: 'counter', help: 'Bytes of record buffers sent to other threads (in-thread channels pass buffers without bytes: 0).' } },
  { value: rate((x) => x.recordsInPerSecond), flink: { name: 'numRecordsInPerSecond', help: 'records taken in per second (over the last 60 s).' }, rest: {} },
  { value: rate((x) => x.recordsOutPerSecond), flink: { name: 'numRecordsOutPerSecond', help: 'records sent per second (over the last 60 s).' }, rest: {} },
  { value: rate((x) => x.bytesInPerSecond), flink: { name: 'numBytesInPerSecond', help: 'bytes received per second (over the last 60 s).' }, rest: {} },
  { value: rate((x) => x.bytesOutPerSecond), flink: { name: 'numBytesOutPerSecond', help: 'bytes sent per second (over the last 60 s).' }, rest: {} },
  { value: rate((x) => x.busyTimeMsPerSecond), flink: { name: 'busyTimeMsPerSecond', help: 'ms per second neither idle nor backpressured (over the last 5 s).' }, rest: msRate },
  { value: rate((x) => x.idleTimeMsPerSecond), flink: { name: 'idleTimeMsPerSecond', help: 'ms per second with nothing to do (over the last 5 s).' }, rest: msRate },
  { value: rate((x) => x.backPressuredTimeMsPerSecond), flink: { name: 'backPressuredTimeMsPerSecond', help: 'ms per second blocked on full outputs (over the last 5 s).' }, rest: msRate },
  { value: task((t) => (t.activity.kind === 'backpressured' ? 1 : 0)), flink: { name: 'isBackPressured', help: '1 while the subtask is blocked on a full output.' } },
  // Whole milliseconds, as Flink's. The Prometheus name has always lacked the `d` of Flink's (and of the REST query's).
  {
    value: task((t) => t.backpressure),
    flink: { name: 'accumulateBackPressuredTimeMs', help: 'ms backpressured in this attempt.', write: rounded },
    rest: { id: 'accumulatedBackPressuredTimeMs' },
    weir: { name: 'weir_task_backpressured_seconds_total', type: 'counter', help: 'Time a subtask was blocked on its outputs (backpressure).', write: seconds },
  },
  {
    value: task((t) => t.idle),
    flink: { name: 'accumulateIdleTimeMs', help: 'ms idle in this attempt.', write: rounded },
    rest: { id: 'accumulatedIdleTimeMs' },
    weir: { name: 'weir_task_idle_seconds_total', type: 'counter', help: 'Time a subtask had nothing to do (no input, its source had nothing yet).', write: seconds },
  },
  // Flink serves the buffer usages under both scopes: the current Shuffle.Netty one and the older buffers one.
  { value: task((t) => t.inPoolUsage), flink: { name: 'Shuffle_Netty_Input_Buffers_inPoolUsage', alias: 'buffers_inPoolUsage', help: "share of the input channels' buffers in use (0..1)." } },
  { value: task((t) => t.outPoolUsage), flink: { name: 'Shuffle_Netty_Output_Buffers_outPoolUsage', alias: 'buffers_outPoolUsage', help: "share of the output channels' buffers in use (0..1)." } },
  { value: task((t) => t.debloated?.bytes ?? 0), flink: { name: 'Shuffle_Netty_Input_debloatedBufferSize', help: 'buffer debloating: bytes each input channel from another TaskManager may hold in flight (0: debloating off).' } },
  { value: task((t) => t.debloated?.records ?? 0), flink: { name: 'Shuffle_Netty_Input_debloatedBufferRecords', help: 'buffer debloating: records each input channel within the TaskManager may hold in flight (0: debloating off; weir only).' } },
  {
    value: (r) => decodeWatermark(r.t?.currentInputWatermark),
    flink: { name: 'currentInputWatermark', help: "the subtask's event time: the minimum watermark over its input channels that are not idle (a source's: its own), ms.", write: watermarkLong },
    rest: { write: watermarkString },
    // Event time: how far behind the wall clock (none before the first watermark, nor at the end of input).
    weir: {
      name: 'weir_task_event_time_lag_seconds',
      type: 'gauge',
      help: "Wall clock minus the subtask's input watermark (a source's: its own), for subtasks with a watermark.",
      write: (wm) => (wm !== undefined && Number.isFinite(wm) ? (Date.now() - wm) / 1000 : undefined),
    },
  },
];

/** Scope taskmanager_job_task_operator: the chained operators of each subtask (REST ids `<operator name>.<metric>`). */
export const OPERATOR_FIGURES: ReadonlyArray<Figure<OperatorRow>> = [
  { value: (r) => decodeWatermark(r.o.currentOutputWatermark), flink: { name: 'currentOutputWatermark', help: 'the last watermark the operator passed on, ms.', write: watermarkLong }, rest: { write: watermarkString } },
  {
    value: (r) => (r.op?.spec.kind === 'window' ? r.o.numLateRecordsDropped : undefined),
    flink: { name: 'numLateRecordsDropped', help: 'window operators: records too late for all their windows that no side output took.' },
    rest: {},
    weir: { name: 'weir_operator_late_records_dropped_total', type: 'counter', help: 'Records a window operator dropped as too late for all their windows (no late-data side output).' },
  },
  // The lmdb state backend's figures, named as Flink names the RocksDB ones it reports per operator.
  {
    value: (r) => r.o.state?.localBytes,
    flink: { name: 'lmdb_total_store_size', help: 'keyed operators on the lmdb state backend: bytes its local store takes on disk (as rocksdb_total_sst_files_size).' },
    rest: { id: 'lmdb.total-store-size' },
    weir: { name: 'weir_operator_state_local_bytes', type: 'gauge', help: 'Bytes the local store of a keyed operator on the lmdb state backend takes on disk.' },
  },
  {
    value: (r) => r.o.state?.cacheHits,
    flink: { name: 'lmdb_cache_hit', help: 'keyed operators on the lmdb state backend: state accesses the in-memory cache answered (as rocksdb_block_cache_hit).' },
    rest: { id: 'lmdb.cache-hit' },
    weir: { name: 'weir_operator_state_cache_hits_total', type: 'counter', help: 'State accesses of a keyed operator on the lmdb state backend that its in-memory cache answered.' },
  },
  {
    value: (r) => r.o.state?.cacheMisses,
    flink: { name: 'lmdb_cache_miss', help: 'keyed operators on the lmdb state backend: state accesses that went to the local store (as rocksdb_block_cache_miss).' },
    rest: { id: 'lmdb.cache-miss' },
    weir: { name: 'weir_operator_state_cache_misses_total', type: 'counter', help: 'State accesses of a keyed operator on the lmdb state backend that went to its local store.' },
  },
  // FLIP-33's watermarkLag of a source: how far its event time is behind the wall clock.
  {
    value: (r) => {
      const wm = decodeWatermark(r.o.currentOutputWatermark);
      return r.isSourceHead && Number.isFinite(wm) ? Date.now() - wm : undefined;
    },
    flink: { name: 'watermarkLag', help: 'sources: ms between now and the watermark the source sent (none before the first).' },
  },
];

/**
 * Scope taskmanager: each TaskManager's local state, its subtasks' keyed operators on the lmdb
 * backend added up (task-manager-state.ts), named as Flink's RocksDB figures are.
 */
export const TASKMANAGER_FIGURES: ReadonlyArray<Figure<TaskManagerStateRow>> = [
  {
    value: (r) => r.localBytes,
    flink: { name: 'lmdb_total_store_size', help: 'bytes the local lmdb stores of the TaskManager\'s keyed operators take on disk (its state working directory).' },
    weir: { name: 'weir_taskmanager_state_local_bytes', type: 'gauge', help: 'Bytes the local state stores of a TaskManager take on disk in its state working directory (lmdb backend).' },
  },
  {
    value: (r) => r.cacheHitRate,
    flink: { name: 'lmdb_cache_hit_rate', help: 'share of the state accesses of the TaskManager\'s keyed operators on lmdb that the in-memory caches answered.' },
    weir: { name: 'weir_taskmanager_state_cache_hit_ratio', type: 'gauge', help: 'Share of the state accesses of a TaskManager (lmdb backend) that the in-memory caches answered, since the stores opened.' },
  },
  {
    value: (r) => r.cacheHits,
    weir: { name: 'weir_taskmanager_state_cache_hits_total', type: 'counter', help: 'State accesses of a TaskManager (lmdb backend) that the in-memory caches answered.' },
  },
  {
    value: (r) => r.cacheMisses,
    weir: { name: 'weir_taskmanager_state_cache_misses_total', type: 'counter', help: 'State accesses of a TaskManager (lmdb backend) that went to the local stores.' },
  },
];
