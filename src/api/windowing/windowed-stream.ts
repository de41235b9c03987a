import { GraphValidationError } from '../../graph/graph-validation-error.ts';
import { callerLocation } from '../caller-location.ts';
import type { DataStream } from '../data-stream.ts';
import type { ReduceFunction } from '../functions.ts';
import { OutputTag } from '../output-tag.ts';
import type { AggregateFunction } from '../state-descriptors.ts';
import type { OperatorSettings } from '../transformation.ts';
import { durationArg, type DurationArg } from '../duration-arg.ts';
import type { ProcessAllWindowFunction, ProcessWindowFunction, WindowContext, WindowFunction } from './process-window-function.ts';
import type { Collector } from '../functions.ts';
import { Trigger } from './trigger.ts';
import type { Window } from './window.ts';
import { MergingWindowAssigner, WindowAssigner } from './window-assigner.ts';
import { SlidingEventTimeWindows, TumblingEventTimeWindows } from './window-assigners.ts';
import { globalAggregate, type LocalPhase } from './local-aggregate.ts';
import type { WindowDefinition, WindowFunctionSpec } from './window-definition.ts';

/** A ProcessWindowFunction, or a factory that makes one per parallel instance. */
export type WindowFn<IN, OUT, KEY, W extends Window> = ProcessWindowFunction<IN, OUT, KEY, W> | (() => ProcessWindowFunction<IN, OUT, KEY, W>);

/**
 * What `process` says to a plain function of (key, context, elements, out): the type checker
 * shows this text where TypeScript would say "Target signature provides too few arguments".
 */
export type UseApplyForAPlainFunction = 'process() takes a ProcessWindowFunction object { process(key, context, elements, out) } or a factory () => object; for a plain function (key, window, elements, out) call apply()';

/** The shape a plain window function has: it is refused by process() with a pointer to apply(). */
export type PlainWindowFunction<IN, KEY, W extends Window> = (key: KEY, context: WindowContext<W>, elements: readonly IN[], out: Collector<unknown>) => UseApplyForAPlainFunction;

/**
 * Adds the window operator to the job (with `local`, after a first phase before its exchange,
 * the window keyed by the LocalAggregate's key): the KeyedStream's own step, so this file needs no DataStream.
 */
export type AddWindowOperator = (definition: WindowDefinition, settings: OperatorSettings, local?: LocalPhase) => DataStream<unknown>;

/** Accumulators the first phase holds before it sends them all on, by default. */
const DEFAULT_LOCAL_AGGREGATION_ENTRIES = 100_000;

/**
 * A keyed stream put into windows (Flink's WindowedStream): choose the trigger, the allowed
 * lateness and where late records go, then how a window becomes its result. Window contents,
 * trigger state and timers are keyed state of the window operator: checkpointed and rescaled
 * with their key groups.
 */
export class WindowedStream<T, K, W extends Window> {
  readonly #assigner: WindowAssigner<T, W>;
  readonly #add: AddWindowOperator;
  readonly #createdAt: string | undefined;
  #trigger: Trigger<T, W> | undefined;
  #allowedLateness = 0;
  #lateDataTag: OutputTag<T> | undefined;
  /** windowAll: the operator runs with parallelism 1. */
  readonly #nonParallel: boolean;
  /** localAggregation(): at most this many accumulators in the first phase; undefined: one phase. */
  #localEntries: number | undefined;

  /** @internal Made by KeyedStream.window and windowAll; users do not construct it. */
  constructor(assigner: WindowAssigner<T, W>, add: AddWindowOperator, nonParallel = false) {
    if (!(assigner instanceof WindowAssigner)) throw new TypeError('window() needs a WindowAssigner (TumblingEventTimeWindows.of(...), SlidingEventTimeWindows.of(...), EventTimeSessionWindows.withGap(...), GlobalWindows.create(), ...)');
    this.#assigner = assigner;
    this.#add = add;
    this.#nonParallel = nonParallel;
    this.#createdAt = callerLocation();
  }

  /** Replaces the assigner's default trigger. */
  trigger(trigger: Trigger<T, W>): this {
    if (!(trigger instanceof Trigger)) throw new TypeError('trigger() needs a Trigger (CountTrigger.of(n), PurgingTrigger.of(...), a subclass of Trigger, ...)');
    if (this.#assigner instanceof MergingWindowAssigner && !trigger.canMerge()) {
      throw new GraphValidationError(`${trigger.toString()} cannot be used with ${this.#assigner.toString()}: merging windows need a trigger whose canMerge() is true`, undefined, callerLocation());
    }
    this.#trigger = trigger;
    return this;
  }

  /**
   * Keeps windows this much (ms or a duration) past their end in event time: a late record within
   * it updates the window and makes it fire again with the updated result; after it the window is
   * gone and its late records are dropped (or go to sideOutputLateData).
   */
  allowedLateness(lateness: DurationArg): this {
    this.#allowedLateness = durationArg(lateness, 'allowedLateness', 'lateness');
    return this;
  }

  /** Records too late for all their windows go to this side output (`getSideOutput(tag)` of the result) instead of being dropped. */
  sideOutputLateData(tag: OutputTag<T>): this {
    if (!(tag instanceof OutputTag)) throw new TypeError('sideOutputLateData needs an OutputTag');
    this.#lateDataTag = tag;
    return this;
  }

  /**
   * Aggregates in two phases (Flink SQL's local-global aggregation, `agg-phase-strategy:
   * TWO_PHASE`): each upstream subtask first adds its records to an accumulator per key and window
   * before the exchange, and sends that; the window operator merges them. One hot key's records
   * are then aggregated by every upstream subtask instead of all by its own. For aggregate() with
   * merge(a, b) over tumbling or sliding event-time windows (sliding ones by panes of
   * gcd(size, slide)) with their default trigger. The first phase holds nothing across a checkpoint (it sends what it holds before the barrier) and at most
   * `maxEntries` accumulators (then it sends them all). The window operator calls
   * merge(own, sent): it may change and return `own`, but must not keep `sent` or anything it
   * changes later: within a TaskManager `sent` is the first phase's record itself, which an
   * unaligned checkpoint may hold as in-flight data.
   */
  localAggregation(maxEntries: number = DEFAULT_LOCAL_AGGREGATION_ENTRIES): this {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError(`localAggregation(maxEntries) needs a whole number >= 1, got ${String(maxEntries)}`);
    if (!(this.#assigner instanceof TumblingEventTimeWindows) && !(this.#assigner instanceof SlidingEventTimeWindows)) {
      throw new GraphValidationError(`localAggregation() over ${this.#assigner.toString()}: two-phase aggregation supports tumbling and sliding event-time windows`, undefined, callerLocation());
    }
    this.#localEntries = maxEntries;
    return this;
  }

  /** Folds each window's records with `fn` as they come (one value kept per window); `windowFunction`, if given, gets the result and the window. */
  reduce(fn: ReduceFunction<T>, settings?: OperatorSettings): DataStream<T>;
  reduce<O>(fn: ReduceFunction<T>, windowFunction: WindowFn<T, O, K, W>, settings?: OperatorSettings): DataStream<O>;
  reduce<O>(fn: ReduceFunction<T>, second?: WindowFn<T, O, K, W> | OperatorSettings, third?: OperatorSettings): DataStream<O> {
    if (typeof fn !== 'function') throw new TypeError('reduce() needs a function (a, b) => combined');
    const [windowFunction, settings] = splitArgs(second, third);
    return this.#build({ kind: 'reduce', reduce: fn as ReduceFunction<unknown>, windowFunction: windowFunction as never }, settings, 'reduce');
  }

  /** Aggregates each window's records as they come (Flink's AggregateFunction); `windowFunction`, if given, gets the result and the window. */
  aggregate<ACC, R>(fn: AggregateFunction<T, ACC, R>, settings?: OperatorSettings): DataStream<R>;
  aggregate<ACC, R, O>(fn: AggregateFunction<T, ACC, R>, windowFunction: WindowFn<R, O, K, W>, settings?: OperatorSettings): DataStream<O>;
  aggregate<ACC, R, O>(fn: AggregateFunction<T, ACC, R>, second?: WindowFn<R, O, K, W> | OperatorSettings, third?: OperatorSettings): DataStream<O> {
    if (typeof fn?.createAccumulator !== 'function' || typeof fn.add !== 'function' || typeof fn.getResult !== 'function') {
      throw new TypeError('aggregate() needs an AggregateFunction: createAccumulator(), add(value, acc), getResult(acc) (and merge(a, b) for session windows)');
    }
    if (this.#assigner instanceof MergingWindowAssigner && typeof fn.merge !== 'function') {
      throw new GraphValidationError(`aggregate() over ${this.#assigner.toString()}: merging windows combine accumulators, so the AggregateFunction needs merge(a, b)`, undefined, callerLocation());
    }
    const [windowFunction, settings] = splitArgs(second, third);
    return this.#build({ kind: 'aggregate', aggregate: fn as AggregateFunction<unknown, unknown, unknown>, windowFunction: windowFunction as never }, settings, 'aggregate');
  }

  /** Computes each window's result from all its records (kept until it fires), with the window and per-window state. */
  process<O>(windowFunction: WindowFn<T, O, K, W> | PlainWindowFunction<T, K, W>, settings?: OperatorSettings): DataStream<O> {
    checkWindowFunction(windowFunction);
    return this.#build({ kind: 'process', windowFunction: windowFunction as never }, settings, 'process');
  }

  /**
   * Computes each window's result with a plain function of (key, window, elements, out) (Flink's
   * WindowedStream.apply(WindowFunction)): results emitted through `out` or returned.
   */
  apply<O>(fn: WindowFunction<T, O, K, W>, settings?: OperatorSettings): DataStream<O> {
    if (typeof fn !== 'function') throw new TypeError('apply() needs a function (key, window, elements, out) => results');
    return this.process<O>((): ProcessWindowFunction<T, O, K, W> => ({
      process: (key, ctx, elements, out) => {
        const results = fn(key, ctx.window(), elements, out);
        if (results !== undefined) for (const r of results) out.collect(r);
      },
    }), settings);
  }

  #build<O>(fn: WindowFunctionSpec, settings: OperatorSettings | undefined, what: string): DataStream<O> {
    if (fn.kind !== 'process' && fn.windowFunction !== undefined) checkWindowFunction(fn.windowFunction);
    const local = this.#localPhase(fn);
    if (local !== undefined) fn = { kind: 'aggregate', aggregate: globalAggregate(local.aggregate) as AggregateFunction<unknown, unknown, unknown>, windowFunction: (fn as { windowFunction: WindowFunctionSpec['windowFunction'] }).windowFunction };
    const assigner = this.#assigner as unknown as WindowAssigner<unknown, Window>;
    const trigger = (this.#trigger ?? this.#assigner.getDefaultTrigger()) as unknown as Trigger<unknown, Window>;
    const definition: WindowDefinition = {
      assigner,
      trigger: this.#trigger as unknown as Trigger<unknown, Window> | undefined,
      allowedLateness: this.#allowedLateness,
      lateDataTag: this.#lateDataTag as OutputTag<unknown> | undefined,
      fn,
      describe: () => `${assigner.toString()}, ${trigger.toString()}, ${what}${local ? ', two-phase' : ''}`,
    };
    let s: OperatorSettings = { ...settings };
    if (this.#nonParallel) {
      if (s.parallelism !== undefined && s.parallelism !== 1) {
        throw new GraphValidationError(`windowAll runs in one subtask: its parallelism must be 1, got ${s.parallelism}`, s.name, this.#createdAt);
      }
      s = { ...s, parallelism: 1 };
    }
    return this.#add(definition, s, local) as DataStream<O>;
  }

  #localPhase(fn: WindowFunctionSpec): LocalPhase | undefined {
    const maxEntries = this.#localEntries;
    if (maxEntries === undefined) return undefined;
    const refuse = (why: string) => new GraphValidationError(`localAggregation(): ${why}`, undefined, this.#createdAt);
    if (fn.kind !== 'aggregate') throw refuse(`the first phase sends accumulators, so the window needs aggregate(fn), not ${fn.kind}()`);
    if (typeof fn.aggregate.merge !== 'function') throw refuse('the window operator merges the accumulators of the first phase: the AggregateFunction needs merge(a, b)');
    if (this.#trigger !== undefined) throw refuse(`a trigger sees records, and the window gets accumulators: leave the default trigger (got ${this.#trigger.toString()})`);
    if (this.#lateDataTag !== undefined) throw refuse('late records reach the window as accumulators, so they cannot go to sideOutputLateData');
    // Sliding windows are aggregated by panes of gcd(size, slide): a pane lies wholly inside
    // every window that holds its last millisecond, where its accumulator is sent.
    const assigner = this.#assigner as unknown as TumblingEventTimeWindows | SlidingEventTimeWindows;
    const pane = assigner instanceof SlidingEventTimeWindows ? gcd(assigner.size, assigner.slide) : assigner.size;
    return { size: pane, offset: assigner.offset % pane, aggregate: fn.aggregate, maxEntries };
  }
}

/** windowAll: the same, over the whole stream in one subtask, with windowAll's function shapes (no key). */
export class AllWindowedStream<T, W extends Window> {
  readonly #inner: WindowedStream<T, number, W>;

  constructor(inner: WindowedStream<T, number, W>) {
    this.#inner = inner;
  }

  trigger(trigger: Trigger<T, W>): this {
    this.#inner.trigger(trigger);
    return this;
  }

  allowedLateness(lateness: DurationArg): this {
    this.#inner.allowedLateness(lateness);
    return this;
  }

  sideOutputLateData(tag: OutputTag<T>): this {
    this.#inner.sideOutputLateData(tag);
    return this;
  }

  /** Two-phase aggregation (WindowedStream.localAggregation): the one window subtask merges what every upstream subtask pre-aggregated. */
  localAggregation(maxEntries?: number): this {
    this.#inner.localAggregation(maxEntries);
    return this;
  }

  reduce(fn: ReduceFunction<T>, settings?: OperatorSettings): DataStream<T>;
  reduce<O>(fn: ReduceFunction<T>, windowFunction: ProcessAllWindowFunction<T, O, W>, settings?: OperatorSettings): DataStream<O>;
  reduce<O>(fn: ReduceFunction<T>, second?: ProcessAllWindowFunction<T, O, W> | OperatorSettings, third?: OperatorSettings): DataStream<O> {
    const [wf, settings] = splitArgs(second, third);
    return wf === undefined ? (this.#inner.reduce(fn, settings) as unknown as DataStream<O>) : this.#inner.reduce(fn, keyless(wf as ProcessAllWindowFunction<T, O, W>), settings);
  }

  aggregate<ACC, R>(fn: AggregateFunction<T, ACC, R>, settings?: OperatorSettings): DataStream<R>;
  aggregate<ACC, R, O>(fn: AggregateFunction<T, ACC, R>, windowFunction: ProcessAllWindowFunction<R, O, W>, settings?: OperatorSettings): DataStream<O>;
  aggregate<ACC, R, O>(fn: AggregateFunction<T, ACC, R>, second?: ProcessAllWindowFunction<R, O, W> | OperatorSettings, third?: OperatorSettings): DataStream<O> {
    const [wf, settings] = splitArgs(second, third);
    return wf === undefined ? (this.#inner.aggregate(fn, settings) as unknown as DataStream<O>) : this.#inner.aggregate(fn, keyless(wf as ProcessAllWindowFunction<R, O, W>), settings);
  }

  process<O>(windowFunction: ProcessAllWindowFunction<T, O, W>, settings?: OperatorSettings): DataStream<O> {
    return this.#inner.process(keyless(windowFunction), settings);
  }
}

/** A ProcessAllWindowFunction as a ProcessWindowFunction that ignores the (constant) key. */
function keyless<IN, OUT, W extends Window>(fn: ProcessAllWindowFunction<IN, OUT, W>): () => ProcessWindowFunction<IN, OUT, number, W> {
  checkWindowFunction(fn as never);
  return () => {
    const own = Object.create(fn) as ProcessAllWindowFunction<IN, OUT, W>;
    return {
      ...(own.open ? { open: (ctx) => own.open!(ctx) } : {}),
      process: (_key, ctx, elements, out) => own.process(ctx, elements, out),
      ...(own.clear ? { clear: (ctx: WindowContext<W>) => own.clear!(ctx) } : {}),
      ...(own.close ? { close: () => own.close!() } : {}),
    };
  };
}

function splitArgs<F>(second: F | OperatorSettings | undefined, third: OperatorSettings | undefined): [F | undefined, OperatorSettings | undefined] {
  if (second === undefined) return [undefined, third];
  const isFunction = typeof second === 'function' || typeof (second as { process?: unknown }).process === 'function';
  return isFunction ? [second as F, third] : [undefined, second as OperatorSettings];
}

function checkWindowFunction(fn: unknown): void {
  if (typeof fn === 'function' ? fn.length !== 0 : typeof (fn as { process?: unknown })?.process !== 'function') {
    throw new TypeError('a window function is an object with process(key, context, elements, out) (Flink\'s ProcessWindowFunction), or a function of no arguments that makes one');
  }
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}
