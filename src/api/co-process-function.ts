import type { Collector, KeyedContext, OnTimerContext, RuntimeContext } from './functions.ts';
import type { ProcessContext } from './process-function.ts';

/**
 * Flink's CoProcessFunction on two connected streams that are not keyed: a call per record of
 * each input, with side outputs and the watermark (the minimum over both inputs). No timers or
 * keyed state: connect two keyed streams for those.
 */
export interface CoProcessFunction<I1, I2, O> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  processElement1(value: I1, ctx: ProcessContext, out: Collector<O>): void;
  processElement2(value: I2, ctx: ProcessContext, out: Collector<O>): void;
  /** Called once when both inputs have been consumed (bounded jobs). */
  endInput?(out: Collector<O>): void;
  close?(): void | Promise<void>;
}

/**
 * Flink's KeyedCoProcessFunction, on `a.keyBy(k1).connect(b.keyBy(k2))`: records of both inputs
 * with the same key see the same keyed state and timers.
 */
export interface KeyedCoProcessFunction<K, I1, I2, O> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  processElement1(value: I1, ctx: KeyedContext<K>, out: Collector<O>): void;
  processElement2(value: I2, ctx: KeyedContext<K>, out: Collector<O>): void;
  /** A timer of this key fired; records emitted here carry its time (event time) or none. */
  onTimer?(timestamp: number, ctx: OnTimerContext<K>, out: Collector<O>): void;
  endInput?(out: Collector<O>): void;
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  notifyCheckpointAborted?(checkpointId: number): void | Promise<void>;
  close?(): void | Promise<void>;
}

/** Flink's CoMapFunction: one output per record of either input. */
export interface CoMapFunction<I1, I2, O> {
  map1(value: I1): O;
  map2(value: I2): O;
}

/** Flink's CoFlatMapFunction: each call returns its outputs or emits them through the collector (or both). */
export interface CoFlatMapFunction<I1, I2, O> {
  flatMap1(value: I1, out: Collector<O>): Iterable<O> | void;
  flatMap2(value: I2, out: Collector<O>): Iterable<O> | void;
}
