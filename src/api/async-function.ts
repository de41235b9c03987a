import type { DurationArg } from './duration-arg.ts';
import type { AsyncRetryStrategy } from './async-retry-strategy.ts';
import type { OperatorSettings } from './transformation.ts';

/**
 * One request per record (Flink's AsyncFunction.asyncInvoke): its results, emitted with the
 * record's timestamp. `signal` aborts when the request times out or the task ends: pass it to
 * fetch() or your client so that nothing outlives the attempt. The signal is made only for a
 * function that declares it (two parameters, `function.length >= 2`); one declared with the
 * record alone is called with the record alone, and saves the AbortController per request.
 */
export type AsyncFunction<IN, OUT> = (input: IN, signal: AbortSignal) => Promise<Iterable<OUT>>;

/** How an async operator waits (Flink's orderedWait/unorderedWait arguments). */
export interface AsyncWaitOptions<IN, OUT> extends OperatorSettings {
  /** Records waiting for their results at once, at most (default 100); a full operator holds its input back. */
  readonly capacity?: number;
  /** How long a record may wait for its results, every retry included (ms or a duration such as '5 s'). */
  readonly timeout: DurationArg;
  /**
   * The results of a record that timed out (Flink's AsyncFunction.timeout). Without it a timeout
   * fails the task with an AsyncTimeoutError naming the operator and the record.
   */
  readonly onTimeout?: (input: IN) => Iterable<OUT>;
  /** When a failed or unwanted attempt is made again (AsyncRetryStrategies.fixedDelay(...), exponentialBackoff(...)). */
  readonly retry?: AsyncRetryStrategy<OUT>;
}

/** ordered: results leave in the order of their records; unordered: as they complete, never across a watermark. */
export type AsyncOutputMode = 'ordered' | 'unordered';
