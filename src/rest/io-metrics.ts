import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import type { IOMetricsView } from './rest-views.ts';

/**
 * A subtask's figures as Flink's IOMetricsInfo. Bytes are what crossed between threads (within a
 * thread records are never serialized, so 0 there is the truth); busy time is Flink's: the
 * attempt's time less idle and backpressured time.
 */
export function ioMetrics(t: TaskMetrics | undefined, attemptMs: number): IOMetricsView {
  const backpressured = Math.round(t?.backpressure ?? 0);
  const idle = Math.round(t?.idle ?? 0);
  return {
    'read-records': t?.recordsIn ?? 0,
    'write-records': t?.recordsOut ?? 0,
    'read-bytes': t?.bytesIn ?? 0,
    'write-bytes': t?.bytesOut ?? 0,
    'read-records-complete': t !== undefined,
    'write-records-complete': t !== undefined,
    'read-bytes-complete': t !== undefined,
    'write-bytes-complete': t !== undefined,
    'accumulated-backpressured-time': backpressured,
    'accumulated-idle-time': idle,
    'accumulated-busy-time': t ? Math.max(0, attemptMs - backpressured - idle) : 0,
  };
}

/** Sums over subtasks; a figure is complete when every subtask's is. */
export function sumIoMetrics(all: readonly IOMetricsView[]): IOMetricsView {
  const sum = (k: keyof IOMetricsView) => all.reduce((n, m) => n + (m[k] as number), 0);
  const every = (k: keyof IOMetricsView) => all.length > 0 && all.every((m) => m[k] === true);
  return {
    'read-records': sum('read-records'),
    'write-records': sum('write-records'),
    'read-bytes': sum('read-bytes'),
    'write-bytes': sum('write-bytes'),
    'read-records-complete': every('read-records-complete'),
    'write-records-complete': every('write-records-complete'),
    'read-bytes-complete': every('read-bytes-complete'),
    'write-bytes-complete': every('write-bytes-complete'),
    'accumulated-backpressured-time': sum('accumulated-backpressured-time'),
    'accumulated-idle-time': sum('accumulated-idle-time'),
    'accumulated-busy-time': sum('accumulated-busy-time'),
  };
}
