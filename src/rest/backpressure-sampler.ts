import type { TaskMetrics } from '../network/control-messages.ts';

interface Sample {
  readonly at: number;
  /** Cumulative ms blocked in the attempt. */
  readonly ms: number;
  readonly attempt: number;
}

/** Samples older than this are forgotten: the ratio is of the recent past. */
const WINDOW_MS = 60_000;
/** A ratio is taken over at least this long when samples allow (TaskManagers report every 500 ms). */
const MIN_SPAN_MS = 1_000;

/**
 * The share of time a subtask was blocked on its outputs, from the cumulative figure its
 * TaskManager reports: the growth between a sample of a second or more ago and now (Flink's
 * backPressuredTimeMsPerSecond over its recent window). At the first request there is no earlier
 * sample, and the share is taken over the whole attempt.
 */
export class BackpressureSampler {
  readonly #samples = new Map<string, Sample[]>();

  ratio(t: TaskMetrics | undefined, attempt: number, attemptStartedAt: number, now = Date.now()): number {
    if (!t) return 0;
    const key = `${t.vertexId}:${t.subtask}`;
    const kept = (this.#samples.get(key) ?? []).filter((s) => s.attempt === attempt && now - s.at <= WINDOW_MS);
    const base = [...kept].reverse().find((s) => now - s.at >= MIN_SPAN_MS) ?? kept[0] ?? { at: attemptStartedAt, ms: 0, attempt };
    const span = now - base.at;
    kept.push({ at: now, ms: t.backpressure, attempt });
    this.#samples.set(key, kept);
    if (span <= 0) return 0;
    return Math.min(1, Math.max(0, (t.backpressure - base.ms) / span));
  }
}
