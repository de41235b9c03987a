import type { JobMaster } from '../coordinator/job-master.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { TaskMetrics } from '../network/control-messages.ts';
import { executionState } from './execution-state.ts';
import { decodeWatermark, type WireWatermark } from '../network/wire-watermark.ts';
import { ioMetrics } from './io-metrics.ts';
import { attemptStart, durationSince, endTime } from './job-timeline.ts';
import type { BackPressureLevel, BackPressureView, MetricView, SubtaskAttemptView, VertexDetailsView } from './rest-views.ts';

/** Flink's currentInputWatermark before any watermark arrived (Long.MIN_VALUE). */
export const NO_WATERMARK = '-9223372036854775808';
/** Flink's watermark at the end of input (Long.MAX_VALUE). */
export const END_WATERMARK = '9223372036854775807';

/** A watermark as Flink's REST API writes it: a long, as a string. */
export function flinkWatermark(wire: WireWatermark | undefined): string {
  const wm = decodeWatermark(wire);
  if (wm === -Infinity) return NO_WATERMARK;
  if (wm === Infinity) return END_WATERMARK;
  return String(Math.floor(wm));
}

export function vertexOf(m: JobMaster, vertexId: string): JobVertex {
  const v = m.graph.vertices.find((x) => x.id === vertexId);
  if (!v) throw Object.assign(new Error(`vertex ${vertexId} not found in job ${m.jobId}`), { statusCode: 404 });
  return v;
}

const metricsOf = (m: JobMaster, v: JobVertex, i: number): TaskMetrics | undefined => m.taskMetrics().find((x) => x.vertexId === v.id && x.subtask === i);

/** GET /jobs/:id/vertices/:vid (Flink's JobVertexDetailsInfo): the vertex and its subtasks' current attempt. */
export function vertexDetails(m: JobMaster, v: JobVertex, now = Date.now()): VertexDetailsView {
  const statuses = m.taskStatuses();
  const started = attemptStart(m);
  const ended = endTime(m);
  return {
    id: v.id,
    name: v.name,
    parallelism: v.parallelism,
    maxParallelism: v.maxParallelism,
    now,
    subtasks: Array.from({ length: v.parallelism }, (_, i): SubtaskAttemptView => {
      const entry = statuses.find((s) => s.vertexId === v.id && s.subtask === i);
      const status = executionState(entry?.status);
      const end = status === 'FINISHED' || status === 'CANCELED' || status === 'FAILED' ? (ended === -1 ? now : ended) : -1;
      return {
        subtask: i,
        status,
        attempt: Math.max(0, m.attempt),
        // A cluster's slot: its TaskManager process's host; TaskManager threads of `weir run`: localhost.
        host: entry ? m.hostOf(entry.taskManager) : 'localhost',
        'start-time': started,
        'end-time': end,
        duration: durationSince(started, end, now),
        metrics: ioMetrics(metricsOf(m, v, i), now - started),
      };
    }),
  };
}

/** Flink's thresholds (BackPressureStatsTrackerImpl / the web UI): ok up to 10 %, low up to 50 %, high above. */
export function backpressureLevel(ratio: number): BackPressureLevel {
  return ratio > 0.5 ? 'high' : ratio > 0.1 ? 'low' : 'ok';
}

/**
 * GET /jobs/:id/vertices/:vid/backpressure (Flink's JobVertexBackPressureInfo): since Flink 1.13 the
 * ratios are the subtasks' backpressured / idle / busy time per second over the recent minute,
 * which is what the JobMaster keeps.
 */
export function vertexBackpressure(m: JobMaster, v: JobVertex, now = Date.now()): BackPressureView {
  const subtasks = Array.from({ length: v.parallelism }, (_, i) => {
    const r = m.taskRates(v.id, i);
    const ratio = (r?.backPressuredTimeMsPerSecond ?? 0) / 1000;
    return {
      subtask: i,
      'attempt-number': Math.max(0, m.attempt),
      backpressureLevel: backpressureLevel(ratio),
      ratio,
      idleRatio: (r?.idleTimeMsPerSecond ?? 0) / 1000,
      busyRatio: (r?.busyTimeMsPerSecond ?? 0) / 1000,
    };
  });
  return { status: 'ok', backpressureLevel: backpressureLevel(Math.max(0, ...subtasks.map((s) => s.ratio))), 'end-timestamp': now, subtasks };
}

/**
 * GET /jobs/:id/vertices/:vid/watermarks (Flink's): each subtask's input watermark, the minimum
 * over its channels that are not idle (a source's: its own); Long.MIN_VALUE before the first.
 */
export function vertexWatermarks(m: JobMaster, v: JobVertex): MetricView[] {
  return Array.from({ length: v.parallelism }, (_, i) => ({ id: `${i}.currentInputWatermark`, value: flinkWatermark(metricsOf(m, v, i)?.currentInputWatermark) }));
}

/** One subtask's metrics under Flink's names (and a source reader's own figures as `source.<name>`). */
export function subtaskMetrics(m: JobMaster, v: JobVertex, i: number): Record<string, number | string> {
  const t = metricsOf(m, v, i);
  const r = m.taskRates(v.id, i);
  return {
    numRecordsIn: t?.recordsIn ?? 0,
    numRecordsOut: t?.recordsOut ?? 0,
    numBytesIn: t?.bytesIn ?? 0,
    numBytesOut: t?.bytesOut ?? 0,
    numRecordsInPerSecond: r?.recordsInPerSecond ?? 0,
    numRecordsOutPerSecond: r?.recordsOutPerSecond ?? 0,
    numBytesInPerSecond: r?.bytesInPerSecond ?? 0,
    numBytesOutPerSecond: r?.bytesOutPerSecond ?? 0,
    busyTimeMsPerSecond: Math.round(r?.busyTimeMsPerSecond ?? 0),
    idleTimeMsPerSecond: Math.round(r?.idleTimeMsPerSecond ?? 0),
    backPressuredTimeMsPerSecond: Math.round(r?.backPressuredTimeMsPerSecond ?? 0),
    accumulatedBackPressuredTimeMs: Math.round(t?.backpressure ?? 0),
    accumulatedIdleTimeMs: Math.round(t?.idle ?? 0),
    currentInputWatermark: flinkWatermark(t?.currentInputWatermark),
    // Operator metrics as Flink lists them: <operator name>.<metric>.
    ...Object.fromEntries((t?.operators ?? []).flatMap((o) => [
      [`${o.name}.currentOutputWatermark`, flinkWatermark(o.currentOutputWatermark)],
      ...(isWindowOperator(v, o.uid) ? [[`${o.name}.numLateRecordsDropped`, o.numLateRecordsDropped]] : []),
    ])),
    ...Object.fromEntries(Object.entries(t?.source ?? {}).map(([k, value]) => [`source.${k}`, value])),
  };
}

function isWindowOperator(v: JobVertex, uid: string): boolean {
  return v.operators.some((o) => o.uid === uid && o.spec.kind === 'window');
}

/** GET /jobs/:id/vertices/:vid/metrics: every subtask's metrics, as Flink names them (`<subtask>.<metric>`). */
export function vertexMetrics(m: JobMaster, v: JobVertex): Record<string, number | string> {
  const all: Record<string, number | string> = {};
  for (let i = 0; i < v.parallelism; i++) for (const [k, value] of Object.entries(subtaskMetrics(m, v, i))) all[`${i}.${k}`] = value;
  return all;
}

/** The job-level metrics of GET /jobs/:id/metrics and GET /jobs/metrics, under Flink's names. */
export function jobMetrics(m: JobMaster, now = Date.now()): Record<string, number> {
  const stats = m.checkpoints.stats;
  const lastCompleted = stats.latestCompleted();
  return {
    numRestarts: m.restarts,
    uptime: m.status === 'RUNNING' ? now - attemptStart(m) : 0,
    totalNumberOfCheckpoints: stats.counts.total,
    numberOfCompletedCheckpoints: stats.counts.completed,
    numberOfFailedCheckpoints: stats.counts.failed,
    numberOfInProgressCheckpoints: stats.counts.inProgress,
    lastCheckpointDuration: lastCompleted ? Math.round(lastCompleted.endToEndDuration) : -1,
    lastCheckpointSize: lastCompleted?.stateSize ?? -1,
    lastCompletedCheckpointId: lastCompleted?.id ?? -1,
    lastCheckpointRestoreTimestamp: stats.latestRestored?.timestamp ?? -1,
  };
}
