import type { Logger } from '../log/logger.ts';
import type { ProcessContext } from './process-function.ts';
import type { TimeDomain } from './timer-service.ts';
import type { Type } from '../serialization/type-info.ts';
import type { Key } from '../state/key-group.ts';
import type {
  AggregatingState,
  ListState,
  MapState,
  OperatorListState,
  ReducingState,
  ValueState,
} from './state.ts';
import type {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  ValueStateDescriptor,
} from './state-descriptors.ts';

export interface Collector<T> {
  collect(value: T): void;
}

/** What every user function can learn about where it runs. */
export interface TaskInfo {
  readonly jobId: string;
  /** pipeline.name, else the first source's name: unlike the job id, the same on every resume. */
  readonly jobName: string;
  readonly operatorName: string;
  readonly operatorUid: string;
  readonly subtaskIndex: number;
  readonly parallelism: number;
  readonly maxParallelism: number;
  readonly attemptNumber: number;
  /** Lines go to the job's log with job id, vertex, subtask and operator uid. */
  readonly log: Logger;
}

export interface RuntimeContext extends TaskInfo {
  getState<T>(descriptor: ValueStateDescriptor<T>): ValueState<T>;
  getListState<T>(descriptor: ListStateDescriptor<T>): ListState<T>;
  getMapState<K, V>(descriptor: MapStateDescriptor<K, V>): MapState<K, V>;
  getReducingState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T>;
  getAggregatingState<IN, ACC, OUT>(descriptor: AggregatingStateDescriptor<IN, ACC, OUT>): AggregatingState<IN, OUT>;
}

/** `type` declares the element type: values are written by its codec and a restore checks it (operator-state-backend.ts). */
export interface OperatorStateContext extends TaskInfo {
  getListState<T>(name: string, options?: { readonly type?: Type<T> }): OperatorListState<T>;
  getUnionListState<T>(name: string, options?: { readonly type?: Type<T> }): OperatorListState<T>;
}

/** What a KeyedProcessFunction's processElement is given (Flink's KeyedProcessFunction.Context). */
export interface KeyedContext<K> extends ProcessContext {
  getCurrentKey(): K;
}

/** What onTimer is given: the timer's key is current (Flink's OnTimerContext). */
export interface OnTimerContext<K> extends KeyedContext<K> {
  timeDomain(): TimeDomain;
}

export type KeySelector<T, K extends Key = Key> = (value: T) => K;
export type MapFunction<I, O> = (value: I) => O;
export type FilterFunction<I> = (value: I) => boolean;
/** Returns the outputs, or emits them through the collector (or both). */
export type FlatMapFunction<I, O> = (value: I, out: Collector<O>) => Iterable<O> | void;
export type ReduceFunction<T> = (a: T, b: T) => T;

/** Flink's KeyedProcessFunction: one call per record, with keyed state scoped to the record's key. */
export interface KeyedProcessFunction<K, I, O> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  processElement(value: I, ctx: KeyedContext<K>, out: Collector<O>): void;
  /**
   * A timer of this key fired (`ctx.timeDomain()` says which kind). Records emitted here carry
   * the timer's timestamp (event time) or none (processing time), as in Flink.
   */
  onTimer?(timestamp: number, ctx: OnTimerContext<K>, out: Collector<O>): void;
  /** Called once when all input has been consumed (bounded jobs). */
  endInput?(out: Collector<O>): void;
  /** A checkpoint that included this function's state is complete (e.g. to publish side effects). */
  notifyCheckpointComplete?(checkpointId: number): void | Promise<void>;
  notifyCheckpointAborted?(checkpointId: number): void | Promise<void>;
  close?(): void | Promise<void>;
  /**
   * The function's own figures, read each time its task reports (every 500 ms, as a source
   * reader's): `figure` or `figure:subject`, in the operator's `figures` of the task's metrics.
   */
  metrics?(): Record<string, number>;
}
