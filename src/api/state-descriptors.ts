import { defaultSerializer, type TypeSerializer } from './serializer.ts';
import { serializerFor } from '../serialization/serializer-for.ts';
import type { Type, TypeInfo } from '../serialization/type-info.ts';
import { Types } from '../serialization/types.ts';
import type { StateTtlConfig } from './state-ttl-config.ts';
import { StateTtlError } from './state-ttl-error.ts';

/**
 * State is only reached through descriptors: a name that is unique within the operator and a
 * serializer. The name and the operator's uid are what a savepoint is organized by.
 *
 * A descriptor may declare the type of its values (`{ type: Types.int }`, Flink's
 * TypeInformation): the state is then written by the type's compiled codec and its schema is
 * stored beside it, so that a restore can tell whether a changed type still reads it. Without a
 * declared type (or serializer) values are written schemaless, keeping what MessagePack keeps
 * (bigints, Maps, Sets, Dates, typed arrays). A `serializer` of one's own is the third way: its
 * bytes are stored as they are, and a restore can only check its id and version.
 */
export type StateKind = 'value' | 'list' | 'map' | 'reducing' | 'aggregating';

/**
 * Turns a stored value into the current shape: when the serializer's version changed, or when
 * the declared type changed in a way the automatic migrations do not cover (plan-migration.ts),
 * e.g. undeclared state that now declares a type, or string -> int. `fromVersion` is the stored
 * serializer's version.
 */
export type StateUpgrade = (value: unknown, fromVersion: number) => unknown;

export interface DescriptorOptions<T> {
  serializer?: TypeSerializer<T>;
  upgrade?: StateUpgrade;
}

abstract class StateDescriptorBase<T> {
  abstract readonly kind: StateKind;
  readonly name: string;
  readonly serializer: TypeSerializer<T>;
  /** The declared type of the whole stored value (a list's array, a map's map), if any. */
  readonly type: TypeInfo | undefined;
  readonly upgrade: StateUpgrade | undefined;
  /** Set by enableTimeToLive: the state's entries expire (state/ttl/). */
  ttlConfig: StateTtlConfig | undefined = undefined;

  constructor(name: string, options: DescriptorOptions<T>, type: TypeInfo | undefined) {
    if (!name) throw new TypeError('a state descriptor needs a non-empty name');
    if (type !== undefined && options.serializer !== undefined) {
      throw new TypeError(`state descriptor '${name}' declares both a type and a serializer: the type is written by its own serializer, so give one or the other`);
    }
    this.name = name;
    this.type = type;
    this.serializer = type !== undefined ? (serializerFor(type) as TypeSerializer<T>) : (options.serializer ?? (defaultSerializer as TypeSerializer<T>));
    this.upgrade = options.upgrade;
  }

  /**
   * Entries of this state expire (Flink's StateDescriptor.enableTimeToLive). Each value (each
   * element of a list, each entry of a map) is stored with its last-access timestamp, so the
   * state's serializer must carry one beside the value: a declared type or the default
   * serializer do; a serializer of one's own does only for a single value (value, reducing and
   * aggregating state), not for a list's elements or a map's entries.
   */
  enableTimeToLive(config: StateTtlConfig): this {
    if (this.kind !== 'value' && this.kind !== 'reducing' && this.kind !== 'aggregating' && this.type === undefined && this.serializer !== (defaultSerializer as TypeSerializer<unknown>)) {
      throw new StateTtlError(
        this.name,
        `state '${this.name}': time to live needs a timestamp per ${this.kind === 'list' ? 'element' : 'entry'}, which serializer '${this.serializer.id}' (one for the whole ${this.kind}) cannot carry; declare the ${this.kind === 'list' ? 'elementType' : 'keyType and valueType'} instead`,
      );
    }
    this.ttlConfig = config;
    return this;
  }
}

export class ValueStateDescriptor<T> extends StateDescriptorBase<T> {
  readonly kind = 'value' as const;
  readonly defaultValue: T | undefined;
  constructor(name: string, options: DescriptorOptions<T> & { type?: Type<T>; defaultValue?: T } = {}) {
    super(name, options, options.type);
    this.defaultValue = options.defaultValue;
  }
}

export class ListStateDescriptor<T> extends StateDescriptorBase<T[]> {
  readonly kind = 'list' as const;
  /** `elementType` is the type of one element; the stored value is an array of it. */
  constructor(name: string, options: DescriptorOptions<T[]> & { elementType?: Type<T> } = {}) {
    super(name, options, options.elementType === undefined ? undefined : Types.array(options.elementType));
  }
}

export class MapStateDescriptor<K, V> extends StateDescriptorBase<Map<K, V>> {
  readonly kind = 'map' as const;
  /** Declaring one of `keyType` and `valueType` declares the other as `Types.any`. */
  constructor(name: string, options: DescriptorOptions<Map<K, V>> & { keyType?: Type<K>; valueType?: Type<V> } = {}) {
    const declared = options.keyType !== undefined || options.valueType !== undefined;
    super(name, options, declared ? Types.map<K, V>(options.keyType ?? (Types.any as Type<K>), options.valueType ?? (Types.any as Type<V>)) : undefined);
  }
}

export class ReducingStateDescriptor<T> extends StateDescriptorBase<T> {
  readonly kind = 'reducing' as const;
  readonly reduce: (a: T, b: T) => T;
  constructor(name: string, reduce: (a: T, b: T) => T, options: DescriptorOptions<T> & { type?: Type<T> } = {}) {
    super(name, options, options.type);
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
  /** `accumulatorType` is what is stored: the accumulator, not the result. */
  constructor(name: string, aggregate: AggregateFunction<IN, ACC, OUT>, options: DescriptorOptions<ACC> & { accumulatorType?: Type<ACC> } = {}) {
    super(name, options, options.accumulatorType);
    this.aggregate = aggregate;
  }
}

export type StateDescriptor =
  | ValueStateDescriptor<any>
  | ListStateDescriptor<any>
  | MapStateDescriptor<any, any>
  | ReducingStateDescriptor<any>
  | AggregatingStateDescriptor<any, any, any>;
