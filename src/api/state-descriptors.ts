import { defaultSerializer, type TypeSerializer } from './serializer.ts';

/**
 * State is only reached through descriptors: a name that is unique within the operator and a
 * serializer. The name and the operator's uid are what a savepoint is organized by.
 */
export type StateKind = 'value' | 'list' | 'map' | 'reducing' | 'aggregating';

/** Turns a value written by an older serializer version into the current shape. */
export type StateUpgrade = (value: unknown, fromVersion: number) => unknown;

interface DescriptorOptions<T> {
  serializer?: TypeSerializer<T>;
  upgrade?: StateUpgrade;
}

abstract class StateDescriptorBase<T> {
  abstract readonly kind: StateKind;
  readonly name: string;
  readonly serializer: TypeSerializer<T>;
  readonly upgrade: StateUpgrade | undefined;

  constructor(name: string, options: DescriptorOptions<T> = {}) {
    if (!name) throw new TypeError('a state descriptor needs a non-empty name');
    this.name = name;
    this.serializer = options.serializer ?? (defaultSerializer as TypeSerializer<T>);
    this.upgrade = options.upgrade;
  }
}

export class ValueStateDescriptor<T> extends StateDescriptorBase<T> {
  readonly kind = 'value' as const;
  readonly defaultValue: T | undefined;
  constructor(name: string, options: DescriptorOptions<T> & { defaultValue?: T } = {}) {
    super(name, options);
    this.defaultValue = options.defaultValue;
  }
}

export class ListStateDescriptor<T> extends StateDescriptorBase<T[]> {
  readonly kind = 'list' as const;
}

export class MapStateDescriptor<K, V> extends StateDescriptorBase<Map<K, V>> {
  readonly kind = 'map' as const;
}

export class ReducingStateDescriptor<T> extends StateDescriptorBase<T> {
  readonly kind = 'reducing' as const;
  readonly reduce: (a: T, b: T) => T;
  constructor(name: string, reduce: (a: T, b: T) => T, options: DescriptorOptions<T> = {}) {
    super(name, options);
    this.reduce = reduce;
  }
}

export interface AggregateFunction<IN, ACC, OUT> {
  createAccumulator(): ACC;
  add(value: IN, accumulator: ACC): ACC;
  getResult(accumulator: ACC): OUT;
  /** Two accumulators as one: needed where windows merge (sessions) or are made of panes (sliding windows without it keep an accumulator per window). */
  merge?(a: ACC, b: ACC): ACC;
}

export class AggregatingStateDescriptor<IN, ACC, OUT> extends StateDescriptorBase<ACC> {
  readonly kind = 'aggregating' as const;
  readonly aggregate: AggregateFunction<IN, ACC, OUT>;
  constructor(name: string, aggregate: AggregateFunction<IN, ACC, OUT>, options: DescriptorOptions<ACC> = {}) {
    super(name, options);
    this.aggregate = aggregate;
  }
}

export type StateDescriptor =
  | ValueStateDescriptor<any>
  | ListStateDescriptor<any>
  | MapStateDescriptor<any, any>
  | ReducingStateDescriptor<any>
  | AggregatingStateDescriptor<any, any, any>;
