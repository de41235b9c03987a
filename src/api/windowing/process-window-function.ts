import type { Collector, RuntimeContext } from '../functions.ts';
import type { OutputTag } from '../output-tag.ts';
import type { KeyedStateStore } from './keyed-state-store.ts';
import type { Window } from './window.ts';

/** What a window function is told about the window it computes (Flink's ProcessWindowFunction.Context). */
export interface WindowContext<W extends Window> {
  window(): W;
  currentProcessingTime(): number;
  currentWatermark(): number;
  /** State of this key and this window (cleared in clear(); not for merging windows). */
  windowState(): KeyedStateStore;
  /** State of this key, across its windows. */
  globalState(): KeyedStateStore;
  output<X>(tag: OutputTag<X>, value: X): void;
}

/**
 * Computes a window's result from its records (Flink's ProcessWindowFunction): all of them
 * (`.process(fn)`), or the one pre-aggregated value (`.reduce(r, fn)`, `.aggregate(a, fn)`).
 * Results carry the window's end - 1 as their timestamp.
 */
export interface ProcessWindowFunction<IN, OUT, KEY, W extends Window> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  process(key: KEY, context: WindowContext<W>, elements: readonly IN[], out: Collector<OUT>): void;
  /** The window is gone (fired and past its allowed lateness): clear its window state. */
  clear?(context: WindowContext<W>): void;
  close?(): void | Promise<void>;
}

/** windowAll's window function: as ProcessWindowFunction, with no key (Flink's ProcessAllWindowFunction). */
export interface ProcessAllWindowFunction<IN, OUT, W extends Window> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  process(context: WindowContext<W>, elements: readonly IN[], out: Collector<OUT>): void;
  clear?(context: WindowContext<W>): void;
  close?(): void | Promise<void>;
}

/**
 * A window's result from a plain function (Flink's WindowFunction, for WindowedStream.apply):
 * the key, the window, its records, and a collector. Results may be emitted through `out` or
 * returned; returned ones give the stream its type without annotating the collector.
 */
export type WindowFunction<IN, OUT, KEY, W extends Window> = (key: KEY, window: W, elements: readonly IN[], out: Collector<OUT>) => Iterable<OUT> | void;
