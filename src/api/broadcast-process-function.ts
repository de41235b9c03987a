import type { Collector, KeyedContext, OnTimerContext, RuntimeContext } from './functions.ts';
import type { ProcessContext } from './process-function.ts';
import type { ListStateDescriptor, MapStateDescriptor, ValueStateDescriptor } from './state-descriptors.ts';
import type { ListState, MapState, ValueState } from './state.ts';
import type { Key } from '../state/key-group.ts';

/** Broadcast state as the non-broadcast side sees it: read only, the same in every subtask. */
export interface ReadOnlyBroadcastState<K, V> {
  get(key: K): V | undefined;
  contains(key: K): boolean;
  entries(): IterableIterator<[K, V]>;
  isEmpty(): boolean;
}

/** Broadcast state on the broadcast side: every subtask gets every broadcast record, so every copy changes alike. */
export interface BroadcastState<K, V> extends ReadOnlyBroadcastState<K, V> {
  put(key: K, value: V): void;
  remove(key: K): void;
  clear(): void;
}

/** What the non-broadcast side's processElement is given (Flink's ReadOnlyContext). */
export interface ReadOnlyBroadcastContext extends ProcessContext {
  getBroadcastState<K, V>(descriptor: MapStateDescriptor<K, V>): ReadOnlyBroadcastState<K, V>;
}

/** What processBroadcastElement is given (Flink's BroadcastProcessFunction.Context). */
export interface BroadcastContext extends ProcessContext {
  getBroadcastState<K, V>(descriptor: MapStateDescriptor<K, V>): BroadcastState<K, V>;
}

/** Flink's KeyedStateFunction: called for every key holding the state, with that key current. */
export type KeyedStateFunction<K, S> = (key: K, state: S) => void;

/**
 * The broadcast side of a keyed broadcast process function: it has no key, but may visit the
 * keyed state of every key this subtask holds (Flink's applyToKeyedState), e.g. to apply a new
 * rule to what each key has seen.
 */
export interface KeyedBroadcastContext extends BroadcastContext {
  applyToKeyedState<T>(descriptor: ValueStateDescriptor<T>, fn: KeyedStateFunction<Key, ValueState<T>>): void;
  applyToKeyedState<T>(descriptor: ListStateDescriptor<T>, fn: KeyedStateFunction<Key, ListState<T>>): void;
  applyToKeyedState<MK, MV>(descriptor: MapStateDescriptor<MK, MV>, fn: KeyedStateFunction<Key, MapState<MK, MV>>): void;
}

/** Flink's BroadcastProcessFunction: a non-keyed stream connected with a broadcast stream. */
export interface BroadcastProcessFunction<I, B, O> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  processElement(value: I, ctx: ReadOnlyBroadcastContext, out: Collector<O>): void;
  processBroadcastElement(value: B, ctx: BroadcastContext, out: Collector<O>): void;
  endInput?(out: Collector<O>): void;
  close?(): void | Promise<void>;
}

/** The keyed side's context: the key, its timers, read-only broadcast state. */
export interface KeyedReadOnlyBroadcastContext<K> extends KeyedContext<K> {
  getBroadcastState<KB, VB>(descriptor: MapStateDescriptor<KB, VB>): ReadOnlyBroadcastState<KB, VB>;
}

export interface KeyedBroadcastOnTimerContext<K> extends OnTimerContext<K> {
  getBroadcastState<KB, VB>(descriptor: MapStateDescriptor<KB, VB>): ReadOnlyBroadcastState<KB, VB>;
}

/** Flink's KeyedBroadcastProcessFunction: a keyed stream connected with a broadcast stream. */
export interface KeyedBroadcastProcessFunction<K, I, B, O> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  processElement(value: I, ctx: KeyedReadOnlyBroadcastContext<K>, out: Collector<O>): void;
  processBroadcastElement(value: B, ctx: KeyedBroadcastContext, out: Collector<O>): void;
  onTimer?(timestamp: number, ctx: KeyedBroadcastOnTimerContext<K>, out: Collector<O>): void;
  endInput?(out: Collector<O>): void;
  close?(): void | Promise<void>;
}
