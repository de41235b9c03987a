/** Keyed state handles: every call reads or writes the entry of the key being processed. */

export interface ValueState<T> {
  value(): T | undefined;
  update(value: T): void;
  clear(): void;
}

export interface ListState<T> {
  get(): readonly T[];
  add(value: T): void;
  addAll(values: readonly T[]): void;
  update(values: readonly T[]): void;
  clear(): void;
}

export interface MapState<K, V> {
  get(key: K): V | undefined;
  put(key: K, value: V): void;
  remove(key: K): void;
  contains(key: K): boolean;
  entries(): IterableIterator<[K, V]>;
  keys(): IterableIterator<K>;
  values(): IterableIterator<V>;
  isEmpty(): boolean;
  clear(): void;
}

export interface ReducingState<T> {
  get(): T | undefined;
  add(value: T): void;
  clear(): void;
}

export interface AggregatingState<IN, OUT> {
  get(): OUT | undefined;
  add(value: IN): void;
  clear(): void;
}

/** Operator (non-keyed) list state, redistributed on rescale by even split or union. */
export interface OperatorListState<T> {
  get(): readonly T[];
  update(values: readonly T[]): void;
  add(value: T): void;
  clear(): void;
}
