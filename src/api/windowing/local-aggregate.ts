import type { AggregateFunction } from '../state-descriptors.ts';

/**
 * The first phase's plan (localAggregation()): windows (a sliding window's panes) of `size` from
 * `offset`, the AggregateFunction, and how many accumulators it may hold before it sends them all.
 */
export interface LocalPhase {
  readonly size: number;
  readonly offset: number;
  readonly aggregate: AggregateFunction<unknown, unknown, unknown>;
  readonly maxEntries: number;
}

/**
 * What the first phase of a two-phase window aggregation sends across the exchange: one key's
 * accumulator of one window, from the records one upstream subtask saw (Flink SQL's local
 * aggregate, `table.optimizer.agg-phase-strategy: TWO_PHASE`). Its timestamp is the window's
 * last millisecond, so the second phase puts it into the same window.
 */
export interface LocalAggregate {
  readonly key: unknown;
  readonly acc: unknown;
}

/**
 * The second phase: the window operator after the exchange merges the accumulators the first
 * phase sent; the window's contents, its state and its result are those of `fn` alone, so a
 * savepoint of the window operator restores with or without the first phase.
 */
export function globalAggregate(fn: AggregateFunction<unknown, unknown, unknown>): AggregateFunction<LocalAggregate, unknown, unknown> {
  const merge = fn.merge!;
  return {
    createAccumulator: () => fn.createAccumulator(),
    // Merged into the window's own accumulator, never kept: within a TaskManager the record is
    // the first phase's object, which an unaligned checkpoint may hold as in-flight data.
    add: (partial, acc) => merge(acc, partial.acc),
    getResult: (acc) => fn.getResult(acc),
    merge,
  };
}
