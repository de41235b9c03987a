import type { Clock } from '../clock/clock.ts';
import { monotonicClock } from './monotonic-clock.ts';

/** What a retry is told of: the attempt that failed, why, and when the next one comes. */
export interface RetryNotice {
  readonly attempt: number;
  readonly error: Error;
  readonly nextDelayMs: number;
  /** Since the first attempt began (this clock). */
  readonly elapsedMs: number;
  /** Left of the timeout after the next delay. */
  readonly remainingMs: number;
}

export interface RetryWithBackoffOptions {
  /** Attempts start until this long after the first one began; then the last error ends it. */
  readonly timeoutMs: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** Whether an error may go away by itself (a store still electing its leader); any other ends the retries at once. */
  readonly retryable: (error: Error) => boolean;
  readonly onRetry: (notice: RetryNotice) => void;
  readonly clock?: Clock;
}

/** The retries ran out of time: how many attempts, for how long; the last attempt's error is the cause. */
export class RetryTimeoutError extends Error {
  readonly attempts: number;
  readonly elapsedMs: number;
  readonly timeoutMs: number;
  constructor(attempts: number, elapsedMs: number, timeoutMs: number, cause: Error) {
    super(`gave up after ${attempts} attempts in ${Math.round(elapsedMs)} ms (timeout ${timeoutMs} ms): ${cause.message}`, { cause });
    this.name = 'RetryTimeoutError';
    this.attempts = attempts;
    this.elapsedMs = elapsedMs;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * Runs `attempt` until it succeeds, pausing between attempts with a delay that doubles from
 * `initialDelayMs` up to `maxDelayMs` (Flink's ExponentialBackoffRetry for ZooKeeper), as long as
 * its errors are retryable and the timeout has not passed; the last pause is cut to what is left.
 */
export async function retryWithBackoff<T>(attempt: (n: number) => Promise<T>, o: RetryWithBackoffOptions): Promise<T> {
  const clock = o.clock ?? monotonicClock;
  const startedAt = clock.now();
  let delay = o.initialDelayMs;
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      if (!o.retryable(error)) throw error;
      const elapsedMs = clock.now() - startedAt;
      const left = o.timeoutMs - elapsedMs;
      if (left <= 0) throw new RetryTimeoutError(n, elapsedMs, o.timeoutMs, error);
      const nextDelayMs = Math.round(Math.min(delay, left));
      o.onRetry({ attempt: n, error, nextDelayMs, elapsedMs, remainingMs: left - nextDelayMs });
      await new Promise<void>((resolve) => clock.schedule(resolve, nextDelayMs));
      delay = Math.min(o.maxDelayMs, delay * 2);
    }
  }
}
