import type { JobMaster } from '../coordinator/job-master.ts';
import type { JobVertex } from '../graph/job-graph.ts';
import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import { executionState } from './execution-state.ts';
import { decodeWatermark, type WireWatermark } from '../network/wire-watermark.ts';
import { ioMetrics } from './io-metrics.ts';
import { watermarkString } from './metric-figures.ts';
import { attemptStart, durationSince, endTime } from './job-timeline.ts';
import type { BackPressureLevel, BackPressureView, MetricView, SubtaskAttemptView, VertexDetailsView } from './rest-views.ts';

/** A watermark as Flink's REST API writes it: a long, as a string. */
export function flinkWatermark(wire: WireWatermark | undefined): string {
  return watermarkString(decodeWatermark(wire));
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
