import type { AggregatingState, ListState, MapState, ReducingState, ValueState } from '../../api/state.ts';
import type { AggregatingStateDescriptor, ReducingStateDescriptor, ValueStateDescriptor } from '../../api/state-descriptors.ts';

/**
 * The current key's value of one state. `read` hands out the stored object itself (a list, a
 * map), so a handle may change it in place: the backend counts an object it hands out as changed.
 * `write(undefined)` removes the key's value.
 */
export interface CurrentValue<V> {
  read(): V | undefined;
  write(value: V | undefined): void;
}

/** The state handles an operator uses, over the current key's value of their state: the same rules as the heap backend's. */
export const currentKeyHandles = {
  value<T>(d: ValueStateDescriptor<T>, v: CurrentValue<T>): ValueState<T> {
    return {
      value: () => {
        const value = v.read();
        if (value !== undefined) return value;
        // A copy, as Flink hands out: a caller that mutates it must not change every key's default.
        return d.defaultValue === undefined ? undefined : d.serializer.copy(d.defaultValue);
      },
      update: (value) => v.write(value),
      clear: () => v.write(undefined),
    };
  },

  list<T>(v: CurrentValue<T[]>): ListState<T> {
    return {
      get: () => v.read() ?? [],
      add: (value) => {
        const list = v.read();
        if (list) list.push(value);
        else v.write([value]);
      },
      addAll: (values) => {
        if (values.length === 0) return;
        const list = v.read();
        if (list) list.push(...values);
        else v.write([...values]);
      },
      update: (values) => v.write(values.length === 0 ? undefined : [...values]),
      clear: () => v.write(undefined),
    };
  },

  map<K, V>(v: CurrentValue<Map<K, V>>): MapState<K, V> {
    const empty = new Map<K, V>();
    return {
      get: (k) => v.read()?.get(k),
      put: (k, value) => {
        const m = v.read();
        if (m) m.set(k, value);
        else v.write(new Map([[k, value]]));
      },
      remove: (k) => {
        const m = v.read();
        if (!m) return;
        m.delete(k);
        if (m.size === 0) v.write(undefined);
      },
      contains: (k) => v.read()?.has(k) ?? false,
      entries: () => (v.read() ?? empty).entries(),
      keys: () => (v.read() ?? empty).keys(),
      values: () => (v.read() ?? empty).values(),
      isEmpty: () => (v.read()?.size ?? 0) === 0,
      clear: () => v.write(undefined),
    };
  },

  reducing<T>(d: ReducingStateDescriptor<T>, v: CurrentValue<T>): ReducingState<T> {
    return {
      get: () => v.read(),
      add: (value) => {
        const prev = v.read();
        v.write(prev === undefined ? value : d.reduce(prev, value));
      },
      clear: () => v.write(undefined),
    };
  },

  aggregating<IN, ACC, OUT>(d: AggregatingStateDescriptor<IN, ACC, OUT>, v: CurrentValue<ACC>): AggregatingState<IN, OUT> {
    return {
      get: () => {
        const acc = v.read();
        return acc === undefined ? undefined : d.aggregate.getResult(acc);
      },
      add: (value) => v.write(d.aggregate.add(value, v.read() ?? d.aggregate.createAccumulator())),
      clear: () => v.write(undefined),
    };
  },
};
