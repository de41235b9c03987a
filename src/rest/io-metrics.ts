import type { TaskMetrics } from '../network/control-messages.ts';
import type { IOMetricsView } from './rest-views.ts';

/**
 * A subtask's figures as Flink's IOMetricsInfo. weir counts records but not bytes, so the byte
 * figures are 0 and marked incomplete; it measures time blocked on outputs but not idle time, so
 * busy time is the attempt's time less the blocked time.
 */
export function ioMetrics(t: TaskMetrics | undefined, attemptMs: number): IOMetricsView {
  const backpressured = Math.round(t?.backpressure ?? 0);
  return {
    'read-records': t?.recordsIn ?? 0,
    'write-records': t?.recordsOut ?? 0,
    'read-bytes': 0,
    'write-bytes': 0,
    'read-records-complete': t !== undefined,
    'write-records-complete': t !== undefined,
    'read-bytes-complete': false,
    'write-bytes-complete': false,
    'accumulated-backpressured-time': backpressured,
    'accumulated-idle-time': 0,
    'accumulated-busy-time': t ? Math.max(0, attemptMs - backpressured) : 0,
  };
}

/** Sums over subtasks; a figure is complete when every subtask's is. */
export function sumIoMetrics(all: readonly IOMetricsView[]): IOMetricsView {
  const sum = (k: keyof IOMetricsView) => all.reduce((n, m) => n + (m[k] as number), 0);
  const every = (k: keyof IOMetricsView) => all.length > 0 && all.every((m) => m[k] === true);
  return {
    'read-records': sum('read-records'),
    'write-records': sum('write-records'),
    'read-bytes': 0,
    'write-bytes': 0,
    'read-records-complete': every('read-records-complete'),
    'write-records-complete': every('write-records-complete'),
    'read-bytes-complete': false,
    'write-bytes-complete': false,
    'accumulated-backpressured-time': sum('accumulated-backpressured-time'),
    'accumulated-idle-time': 0,
    'accumulated-busy-time': sum('accumulated-busy-time'),
  };
}
