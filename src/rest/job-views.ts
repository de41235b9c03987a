import type { JobMaster } from '../coordinator/job-master.ts';
import type { TaskRates } from '../coordinator/task-rates.ts';
import { decodeWatermark, type WireWatermark } from '../network/wire-watermark.ts';
import { describeActivity } from '../network/task-activity.ts';
import { aggregateState, countStates, executionState, taskCounts } from './execution-state.ts';
import { ioMetrics, sumIoMetrics } from './io-metrics.ts';
import { jobPlan } from './job-config-views.ts';
import { jobName } from './job-name.ts';
import { attemptStart, durationSince, endTime, lastModification } from './job-timeline.ts';
import type { ExecutionState, JobDetailsView, JobExceptionsView, JobsListView, JobSummaryView, OverviewView, SubtaskView, VertexView } from './rest-views.ts';
import { WEIR_VERSION } from './weir-version.ts';

/** GET /overview: how many jobs are in which state. */
export function jobOverview(masters: readonly JobMaster[]): OverviewView {
  const count = (s: string) => masters.filter((m) => m.status === s).length;
  return {
    'jobs-running': masters.filter((m) => m.status === 'RUNNING' || m.status === 'RESTARTING' || m.status === 'CREATED').length,
    'jobs-finished': count('FINISHED'),
    'jobs-cancelled': count('CANCELED'),
    'jobs-failed': count('FAILED'),
    'flink-version': WEIR_VERSION,
    'flink-commit': WEIR_VERSION,
  };
}

/** GET /jobs: ids and states only. */
export function jobsList(masters: readonly JobMaster[]): JobsListView {
  return { jobs: masters.map((m) => ({ id: m.jobId, status: m.status })) };
}

/** Every subtask's Flink state, vertex by vertex in graph order. */
function subtaskStates(m: JobMaster): Map<string, ExecutionState[]> {
  const statuses = m.taskStatuses();
  return new Map(
    m.graph.vertices.map((v) => [v.id, Array.from({ length: v.parallelism }, (_, i) => executionState(statuses.find((s) => s.vertexId === v.id && s.subtask === i)?.status))]),
  );
}

/** A job of GET /jobs/overview (Flink's JobDetails, every field its clients parse). */
export function jobSummary(m: JobMaster, now = Date.now()): JobSummaryView {
  const end = endTime(m);
  return {
    jid: m.jobId,
    name: jobName(m),
    state: m.status,
    'start-time': m.startedAt,
    'end-time': end,
    duration: durationSince(m.startedAt, end, now),
    'last-modification': lastModification(m),
    tasks: taskCounts([...subtaskStates(m).values()].flat()),
    now,
    restarts: m.restarts,
  };
}

/** GET /jobs/:id: the summary with the job graph's vertices and their subtasks' figures. */
/** Where a subtask's time goes, per second over the recent minute (Flink's task time gauges). */
function timeShares(r: TaskRates | undefined): Pick<SubtaskView, 'busyTimeMsPerSecond' | 'idleTimeMsPerSecond' | 'backPressuredTimeMsPerSecond'> {
  return {
    busyTimeMsPerSecond: Math.round(r?.busyTimeMsPerSecond ?? 0),
    idleTimeMsPerSecond: Math.round(r?.idleTimeMsPerSecond ?? 0),
    backPressuredTimeMsPerSecond: Math.round(r?.backPressuredTimeMsPerSecond ?? 0),
  };
}

export function jobDetails(m: JobMaster): JobDetailsView {
  const now = Date.now();
  const metrics = m.taskMetrics();
  const statuses = m.taskStatuses();
  const states = subtaskStates(m);
  const started = attemptStart(m);
  const end = endTime(m);
  return {
    ...jobSummary(m, now),
    isStoppable: false,
    maxParallelism: Math.max(...m.graph.vertices.map((v) => v.maxParallelism)),
    'status-counts': countStates([...states.values()].flat()),
    timestamps: { CREATED: m.startedAt, ...(end !== -1 ? { [m.status]: end } : {}) },
    plan: jobPlan(m).plan,
    vertices: m.graph.vertices.map((v): VertexView => {
      const vertexStates = states.get(v.id) ?? [];
      const subtasks = Array.from({ length: v.parallelism }, (_, i): SubtaskView => {
        const t = metrics.find((x) => x.vertexId === v.id && x.subtask === i);
        return {
          subtask: i,
          status: statuses.find((s) => s.vertexId === v.id && s.subtask === i)?.status ?? 'initializing',
          'read-records': t?.recordsIn ?? 0,
          'write-records': t?.recordsOut ?? 0,
          'backpressured-ms': Math.round(t?.backpressure ?? 0),
          'read-bytes': t?.bytesIn ?? 0,
          'write-bytes': t?.bytesOut ?? 0,
          ...timeShares(m.taskRates(v.id, i)),
          inPoolUsage: t?.inPoolUsage ?? 0,
          outPoolUsage: t?.outPoolUsage ?? 0,
          ...(t?.debloated ? { debloated: t.debloated } : {}),
          // A finished subtask reports no more: its last report (mid-processing) is not what it does now.
          activity: vertexStates[i] === 'FINISHED' ? 'finished' : t ? describeActivity(t, now) : '',
          ...(t?.source ? { source: t.source } : {}),
          watermark: watermarkView(t?.currentInputWatermark),
          lateRecordsDropped: (t?.operators ?? []).reduce((n, o) => n + o.numLateRecordsDropped, 0),
        };
      });
      const progress = v.isSource ? m.sourceCoordinatorMetrics()[v.id] : undefined;
      const vertexEnd = vertexStates.length > 0 && vertexStates.every((s) => s === 'FINISHED' || s === 'CANCELED' || s === 'FAILED') ? (end === -1 ? now : end) : -1;
      return {
        id: v.id,
        name: v.name,
        parallelism: v.parallelism,
        maxParallelism: v.maxParallelism,
        status: aggregateState(vertexStates),
        tasks: countStates(vertexStates),
        'start-time': started,
        'end-time': vertexEnd,
        duration: durationSince(started, vertexEnd, now),
        operators: v.operators.map((o) => ({ id: o.operatorId, uid: o.uid, name: o.name, kind: o.spec.kind })),
        inputs: v.inputs.map((e) => ({ id: e.source.id, ship_strategy: e.partitioner.kind.toUpperCase() })),
        metrics: sumIoMetrics(Array.from({ length: v.parallelism }, (_, i) => ioMetrics(metrics.find((x) => x.vertexId === v.id && x.subtask === i), now - started))),
        subtasks,
        ...(progress && Object.keys(progress).length > 0 ? { 'source-progress': progress } : {}),
      };
    }),
  };
}

/** GET /jobs/:id/exceptions: every failure seen, oldest first (Flink's JobExceptionsInfoWithHistory). */
export function jobExceptions(m: JobMaster): JobExceptionsView {
  return {
    exceptionHistory: {
      entries: m.exceptions.map((e) => ({
        exceptionName: e.error.name,
        stacktrace: e.error.stack ?? e.error.message,
        timestamp: e.timestamp,
        ...(e.error.vertex ? { taskName: e.error.vertex } : {}),
        attempt: e.attempt,
        restarted: e.restarted,
      })),
      truncated: false,
    },
    restarts: m.restarts,
  };
}

function watermarkView(wire: WireWatermark | undefined): number | 'end' | null {
  const wm = decodeWatermark(wire);
  return wm === -Infinity ? null : wm === Infinity ? 'end' : wm;
}
