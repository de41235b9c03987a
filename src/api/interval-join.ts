import type { Key } from '../state/key-group.ts';
import { callerLocation } from './caller-location.ts';
import type { TwoInputStep } from './connected-streams.ts';
import type { DataStream } from './data-stream.ts';
import type { KeySelector } from './functions.ts';
import type { OutputTag } from './output-tag.ts';
import type { ProcessJoinFunction } from './process-join-function.ts';
import { StreamConnectionError } from './stream-connection-error.ts';
import type { OperatorSettings } from './transformation.ts';
import { parseDuration } from '../config/duration.ts';

/** A bound of an interval join: ms (negative for before), or a duration such as '5 s' or '-2 min'. */
export type JoinBound = number | string;

function bound(value: JoinBound, argument: string): number {
  const negative = typeof value === 'string' && value.trim().startsWith('-');
  const ms = typeof value === 'number' ? (Number.isFinite(value) ? value : undefined) : parseDuration(negative ? value.trim().slice(1) : value);
  if (ms === undefined) {
    throw new StreamConnectionError('IntervalJoin', `between(lower, upper): ${argument} must be a number of ms or a duration such as '5 s' or '-2 s', got ${JSON.stringify(value)}`, callerLocation());
  }
  return negative ? -ms : ms;
}

/** `a.keyBy(k1).intervalJoin(b.keyBy(k2))` (Flink's KeyedStream.IntervalJoin): give the bounds with between(lower, upper). */
export class IntervalJoin<T1, T2, K extends Key> {
  readonly #step: TwoInputStep;
  readonly #keys: readonly [KeySelector<T1, K>, KeySelector<T2, K>];

  /** @internal Made by KeyedStream.intervalJoin; users do not construct it. */
  constructor(step: TwoInputStep, keys: readonly [KeySelector<T1, K>, KeySelector<T2, K>]) {
    this.#step = step;
    this.#keys = keys;
  }

  /** Joins a right record with a left one of its key when `left.ts + lower <= right.ts <= left.ts + upper` (both inclusive unless made exclusive). */
  between(lower: JoinBound, upper: JoinBound): IntervalJoined<T1, T2, K> {
    const lo = bound(lower, 'lower');
    const hi = bound(upper, 'upper');
    if (lo > hi) throw new StreamConnectionError('IntervalJoin', `between(lower, upper): lower (${lo} ms) is above upper (${hi} ms), so nothing could ever join`, callerLocation());
    return new IntervalJoined(this.#step, this.#keys, lo, hi);
  }
}

/** Flink's IntervalJoined: the bounds set; the join function next. */
export class IntervalJoined<T1, T2, K extends Key> {
  readonly #step: TwoInputStep;
  readonly #keys: readonly [KeySelector<T1, K>, KeySelector<T2, K>];
  #lower: number;
  #upper: number;
  #lateLeft: OutputTag<T1> | undefined;
  #lateRight: OutputTag<T2> | undefined;

  /** @internal Made by KeyedStream.intervalJoin; users do not construct it. */
  constructor(step: TwoInputStep, keys: readonly [KeySelector<T1, K>, KeySelector<T2, K>], lower: number, upper: number) {
    this.#step = step;
    this.#keys = keys;
    this.#lower = lower;
    this.#upper = upper;
  }

  lowerBoundExclusive(): this {
    this.#lower += 1;
    return this;
  }

  upperBoundExclusive(): this {
    this.#upper -= 1;
    return this;
  }

  /** Left records behind the watermark go to `tag` instead of being dropped. */
  sideOutputLeftLateData(tag: OutputTag<T1>): this {
    this.#lateLeft = tag;
    return this;
  }

  sideOutputRightLateData(tag: OutputTag<T2>): this {
    this.#lateRight = tag;
    return this;
  }

  /** A ProcessJoinFunction (or a factory of one) per joined pair; results carry the pair's larger timestamp. */
  process<O>(fn: ProcessJoinFunction<T1, T2, O> | (() => ProcessJoinFunction<T1, T2, O>), settings?: OperatorSettings): DataStream<O> {
    const definedAt = callerLocation();
    if (typeof fn !== 'function' && typeof (fn as { processElement?: unknown } | null)?.processElement !== 'function') {
      throw new StreamConnectionError(settings?.name ?? 'IntervalJoin', 'process() needs an object with a processElement(left, right, ctx, out) method, or a function that makes one', definedAt);
    }
    if (this.#lower > this.#upper) throw new StreamConnectionError(settings?.name ?? 'IntervalJoin', `the exclusive bounds leave no interval (lower ${this.#lower} ms, upper ${this.#upper} ms)`, definedAt);
    return this.#step<O>(
      {
        kind: 'interval-join',
        fn: fn as unknown as ProcessJoinFunction<unknown, unknown, unknown>,
        keySelectors: this.#keys as unknown as readonly [KeySelector<unknown>, KeySelector<unknown>],
        lowerMs: this.#lower,
        upperMs: this.#upper,
        lateTags: [this.#lateLeft as OutputTag<unknown> | undefined, this.#lateRight as OutputTag<unknown> | undefined],
        definedAt,
      },
      { name: 'IntervalJoin', ...settings },
    );
  }
}
