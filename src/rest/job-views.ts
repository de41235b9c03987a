import type { JobMaster } from '../coordinator/job-master.ts';
import { describeActivity } from '../network/task-activity.ts';
import type { JobDetailsView, JobExceptionsView, JobsListView, JobSummaryView, OverviewView, SubtaskView, VertexView } from './rest-views.ts';

/** GET /overview: how many jobs are in which state. */
export function jobOverview(masters: readonly JobMaster[]): OverviewView {
  const count = (s: string) => masters.filter((m) => m.status === s).length;
  return {
    'jobs-running': masters.filter((m) => m.status === 'RUNNING' || m.status === 'RESTARTING' || m.status === 'CREATED').length,
    'jobs-finished': count('FINISHED'),
    'jobs-cancelled': count('CANCELED'),
    'jobs-failed': count('FAILED'),
  };
}

/** GET /jobs: ids and states only. */
export function jobsList(masters: readonly JobMaster[]): JobsListView {
  return { jobs: masters.map((m) => ({ id: m.jobId, status: m.status })) };
}

/** A job of GET /jobs/overview (Flink's JobDetailsInfo, in the fields that apply). */
export function jobSummary(m: JobMaster, now = Date.now()): JobSummaryView {
  return {
    jid: m.jobId,
    name: m.graph.vertices.find((v) => v.isSource)?.name ?? 'job',
    state: m.status,
    'start-time': m.startedAt,
    'end-time': -1,
    duration: now - m.startedAt,
    now,
    restarts: m.restarts,
  };
}

/** GET /jobs/:id: the summary with the job graph's vertices and their subtasks' figures. */
export function jobDetails(m: JobMaster): JobDetailsView {
  const now = Date.now();
  const metrics = m.taskMetrics();
  const statuses = m.taskStatuses();
  return {
    ...jobSummary(m, now),
    vertices: m.graph.vertices.map((v): VertexView => {
      const subtasks = Array.from({ length: v.parallelism }, (_, i): SubtaskView => {
        const t = metrics.find((x) => x.vertexId === v.id && x.subtask === i);
        return {
          subtask: i,
          status: statuses.find((s) => s.vertexId === v.id && s.subtask === i)?.status ?? 'initializing',
          'read-records': t?.recordsIn ?? 0,
          'write-records': t?.recordsOut ?? 0,
          'backpressured-ms': Math.round(t?.backpressure ?? 0),
          activity: t ? describeActivity(t, now) : '',
          ...(t?.source ? { source: t.source } : {}),
        };
      });
      const progress = v.isSource ? m.sourceCoordinatorMetrics()[v.id] : undefined;
      return {
        id: v.id,
        name: v.name,
        parallelism: v.parallelism,
        maxParallelism: v.maxParallelism,
        operators: v.operators.map((o) => ({ id: o.operatorId, uid: o.uid, name: o.name, kind: o.spec.kind })),
        inputs: v.inputs.map((e) => ({ id: e.source.id, ship_strategy: e.partitioner.kind.toUpperCase() })),
        metrics: {
          'read-records': subtasks.reduce((n, s) => n + s['read-records'], 0),
          'write-records': subtasks.reduce((n, s) => n + s['write-records'], 0),
        },
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
        taskName: e.error.vertex ?? null,
        attempt: e.attempt,
        restarted: e.restarted,
      })),
      truncated: false,
    },
    restarts: m.restarts,
  };
}
