import type { TaskMetrics } from '../rpc/job-master-gateway.ts';

/** A subtask's figures per second, as Flink's meters and time gauges of a task give them. */
export interface TaskRates {
  readonly recordsInPerSecond: number;
  readonly recordsOutPerSecond: number;
  readonly bytesInPerSecond: number;
  readonly bytesOutPerSecond: number;
  readonly idleTimeMsPerSecond: number;
  readonly backPressuredTimeMsPerSecond: number;
  /** What is neither idle nor backpressured (Flink's definition): records, mails, snapshots, a sink not ready. */
  readonly busyTimeMsPerSecond: number;
}

/** Flink's MeterView averages rates over 60 s. */
const SPAN_MS = 60_000;
/** Flink's TimerGauge (busy, idle, backpressured time) measures over its view's update interval, 5 s. */
const TIME_SPAN_MS = 5_000;

type Sample = Pick<TaskMetrics, 'reportedAt' | 'recordsIn' | 'recordsOut' | 'bytesIn' | 'bytesOut' | 'idle' | 'backpressure'>;

/**
 * The rates of one subtask attempt, from its successive reports (every 500 ms): records and bytes
 * between the oldest report of the last 60 s and the newest, time shares over the last 5 s;
 * shorter after a (re)start.
 */
export class TaskRateWindow {
  readonly #samples: Sample[] = [];

  add(m: TaskMetrics): void {
    const s = this.#samples;
    const last = s[s.length - 1];
    // Reports can come twice for one moment (a deploy sends one before the first step).
    if (last && m.reportedAt <= last.reportedAt) s[s.length - 1] = sample(m);
    else s.push(sample(m));
    const newest = s[s.length - 1]!.reportedAt;
    while (s.length > 2 && newest - s[1]!.reportedAt >= SPAN_MS) s.shift();
  }

  /** Zero until two reports are in. */
  rates(): TaskRates {
    const s = this.#samples;
    const first = s[0];
    const last = s[s.length - 1];
    const per = perSecond(first, last);
    // Time shares over the recent 5 s: the newest report at least that old, else the oldest.
    let from = first;
    for (let i = s.length - 2; i >= 0; i--) {
      if (last!.reportedAt - s[i]!.reportedAt >= TIME_SPAN_MS) {
        from = s[i];
        break;
      }
    }
    const recent = perSecond(from, last);
    const ms = first && last ? last.reportedAt - first.reportedAt : 0;
    const idle = Math.min(1000, recent((x) => x.idle));
    const backPressured = Math.min(1000 - idle, recent((x) => x.backpressure));
    return {
      recordsInPerSecond: per((x) => x.recordsIn),
      recordsOutPerSecond: per((x) => x.recordsOut),
      bytesInPerSecond: per((x) => x.bytesIn),
      bytesOutPerSecond: per((x) => x.bytesOut),
      idleTimeMsPerSecond: idle,
      backPressuredTimeMsPerSecond: backPressured,
      busyTimeMsPerSecond: ms > 0 ? 1000 - idle - backPressured : 0,
    };
  }
}

function perSecond(a: Sample | undefined, b: Sample | undefined): (f: (x: Sample) => number) => number {
  const ms = a && b ? b.reportedAt - a.reportedAt : 0;
  return (f) => (ms > 0 ? Math.max(0, ((f(b!) - f(a!)) * 1000) / ms) : 0);
}

function sample(m: TaskMetrics): Sample {
  return { reportedAt: m.reportedAt, recordsIn: m.recordsIn, recordsOut: m.recordsOut, bytesIn: m.bytesIn, bytesOut: m.bytesOut, idle: m.idle, backpressure: m.backpressure };
}
