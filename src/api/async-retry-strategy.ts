import { durationArg, type DurationArg } from './duration-arg.ts';

/**
 * When and after how long an async request is tried again (Flink's AsyncRetryStrategy): after
 * attempt `attempts` (1 after the first try) failed with an error or gave a result the
 * predicates reject. The overall `timeout` of the request covers every attempt.
 */
export interface AsyncRetryStrategy<OUT = unknown> {
  /** Whether another attempt may follow attempt number `attempts`. */
  canRetry(attempts: number): boolean;
  /** How long to wait before the attempt after `attempts`. */
  backoffMs(attempts: number): number;
  /** A result that should be asked for again (e.g. empty); without one, every result is taken. */
  retryOnResult?(results: readonly OUT[]): boolean;
  /** An error worth another attempt; without one, no error is retried. */
  retryOnError?(error: unknown): boolean;
}

/** What every built strategy takes besides its delays. */
export interface RetryPredicates<OUT> {
  /** The most attempts in all, the first one included (Flink counts retries: maxAttempts here is Flink's + 1). */
  readonly maxAttempts: number;
  /** Retry a result for which this is true (default: never). */
  readonly ifResult?: (results: readonly OUT[]) => boolean;
  /** Retry an error for which this is true (default: every error). */
  readonly ifError?: (error: unknown) => boolean;
}

export interface FixedDelayRetry<OUT> extends RetryPredicates<OUT> {
  readonly delay: DurationArg;
}

export interface ExponentialBackoffRetry<OUT> extends RetryPredicates<OUT> {
  readonly initialDelay: DurationArg;
  readonly maxDelay: DurationArg;
  /** Factor from one delay to the next (default 2). */
  readonly multiplier?: number;
}

/** The strategies Flink's AsyncRetryStrategies builds: none, fixed delay and exponential backoff. */
export const AsyncRetryStrategies = {
  noRetry: { canRetry: () => false, backoffMs: () => 0 } satisfies AsyncRetryStrategy<never> as AsyncRetryStrategy<never>,

  fixedDelay<OUT = unknown>(o: FixedDelayRetry<OUT>): AsyncRetryStrategy<OUT> {
    const delay = durationArg(o.delay, 'AsyncRetryStrategies.fixedDelay', 'delay');
    return withPredicates(o, 'AsyncRetryStrategies.fixedDelay', () => delay);
  },

  exponentialBackoff<OUT = unknown>(o: ExponentialBackoffRetry<OUT>): AsyncRetryStrategy<OUT> {
    const what = 'AsyncRetryStrategies.exponentialBackoff';
    const initial = durationArg(o.initialDelay, what, 'initialDelay');
    const max = durationArg(o.maxDelay, what, 'maxDelay');
    const multiplier = o.multiplier ?? 2;
    if (!(multiplier >= 1)) throw new TypeError(`${what}: multiplier must be 1 or more, got ${String(o.multiplier)}`);
    if (max < initial) throw new TypeError(`${what}: maxDelay (${max} ms) is less than initialDelay (${initial} ms)`);
    return withPredicates(o, what, (attempts) => Math.min(max, initial * multiplier ** (attempts - 1)));
  },
};

function withPredicates<OUT>(o: RetryPredicates<OUT>, what: string, backoffMs: (attempts: number) => number): AsyncRetryStrategy<OUT> {
  if (!Number.isInteger(o.maxAttempts) || o.maxAttempts < 1) throw new TypeError(`${what}: maxAttempts must be a whole number of 1 or more (the first attempt included), got ${String(o.maxAttempts)}`);
  const ifError = o.ifError ?? (() => true);
  return {
    canRetry: (attempts) => attempts < o.maxAttempts,
    backoffMs,
    retryOnError: ifError,
    ...(o.ifResult ? { retryOnResult: o.ifResult } : {}),
  };
}
