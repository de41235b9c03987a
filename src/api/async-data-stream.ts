import { GraphValidationError } from '../graph/graph-validation-error.ts';
import type { AsyncFunction, AsyncOutputMode, AsyncWaitOptions } from './async-function.ts';
import { callerLocation } from './caller-location.ts';
import { DataStream } from './data-stream.ts';
import { durationArg } from './duration-arg.ts';
import type { OperatorSettings } from './transformation.ts';

const DEFAULT_CAPACITY = 100;

/**
 * Async I/O (Flink's AsyncDataStream): an async function per record, many records waiting at
 * once, results in order (orderedWait) or as they come (unorderedWait). The records waiting are
 * part of every checkpoint and are asked for again after a restore, so state and output stay
 * exactly-once; the wait never blocks the task's thread.
 */
export const AsyncDataStream = {
  /** Results leave in the order their records came. */
  orderedWait<IN, OUT>(stream: DataStream<IN>, fn: AsyncFunction<IN, OUT>, options: AsyncWaitOptions<NoInfer<IN>, NoInfer<OUT>>): DataStream<OUT> {
    return addAsyncOperator(stream, fn, options, 'ordered');
  },

  /** Results leave as soon as they complete, but never across a watermark: event time stays right. */
  unorderedWait<IN, OUT>(stream: DataStream<IN>, fn: AsyncFunction<IN, OUT>, options: AsyncWaitOptions<NoInfer<IN>, NoInfer<OUT>>): DataStream<OUT> {
    return addAsyncOperator(stream, fn, options, 'unordered');
  },
};

function addAsyncOperator<IN, OUT>(stream: DataStream<IN>, fn: AsyncFunction<IN, OUT>, options: AsyncWaitOptions<IN, OUT>, mode: AsyncOutputMode): DataStream<OUT> {
  const call = mode === 'ordered' ? 'AsyncDataStream.orderedWait' : 'AsyncDataStream.unorderedWait';
  if (!(stream instanceof DataStream)) throw new TypeError(`${call} needs a DataStream as its first argument`);
  if (typeof fn !== 'function') throw new TypeError(`${call} needs an async function (record, signal) => results`);
  const { capacity = DEFAULT_CAPACITY, timeout, onTimeout, retry, ...settings } = options ?? ({} as AsyncWaitOptions<IN, OUT>);
  if (!Number.isInteger(capacity) || capacity < 1) {
    throw new GraphValidationError(`${call}: capacity must be a whole number of 1 or more, got ${String(capacity)}`, settings.name, callerLocation());
  }
  if (timeout === undefined) throw new TypeError(`${call}: options.timeout is required (ms or a duration such as '5 s')`);
  const timeoutMs = durationArg(timeout, call, 'timeout', true);
  if (onTimeout !== undefined && typeof onTimeout !== 'function') throw new TypeError(`${call}: onTimeout must be a function (record) => results`);
  if (retry !== undefined && (typeof retry.canRetry !== 'function' || typeof retry.backoffMs !== 'function')) {
    throw new TypeError(`${call}: retry must be an AsyncRetryStrategy (AsyncRetryStrategies.fixedDelay(...), exponentialBackoff(...))`);
  }
  const spec = {
    kind: 'async',
    mode,
    fn: fn as AsyncFunction<unknown, unknown>,
    capacity,
    timeoutMs,
    ...(onTimeout ? { onTimeout: onTimeout as (input: unknown) => Iterable<unknown> } : {}),
    ...(retry ? { retry } : {}),
  } as const;
  const named: OperatorSettings = { name: mode === 'ordered' ? 'Async (ordered)' : 'Async (unordered)', ...settings };
  return new DataStream<OUT>(stream.environment, stream.environment.addTransformation(spec, [stream.transformation], named));
}
