import type { AggregatingState, ListState, MapState, ReducingState, ValueState } from '../../api/state.ts';
import {
  ValueStateDescriptor,
  type AggregatingStateDescriptor,
  type ListStateDescriptor,
  type MapStateDescriptor,
  type ReducingStateDescriptor,
  type StateDescriptor,
} from '../../api/state-descriptors.ts';
import type { KeyedStateStore } from '../../api/windowing/keyed-state-store.ts';
import type { WindowKey } from '../../api/windowing/window-assigner.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';

/**
 * Keyed state per key and window (Flink's namespaced state): each descriptor is one keyed state
 * named `<prefix><name>` whose value, per key, is a Map from window to the window's value. So it
 * is checkpointed and rescaled with its key, and `weir inspect` shows it under that name. The
 * window is the one set in `namespace` before the handles are used.
 */
export class NamespacedStateStore implements KeyedStateStore {
  namespace: WindowKey = 0;
  readonly #backend: KeyedStateBackend;
  readonly #prefix: string;
  readonly #tables = new Map<string, { readonly kind: string; readonly state: ValueState<Map<WindowKey, unknown>> }>();
  readonly #handles = new Map<string, unknown>();

  constructor(backend: KeyedStateBackend, prefix: string) {
    this.#backend = backend;
    this.#prefix = prefix;
  }

  #table(d: StateDescriptor): ValueState<Map<WindowKey, unknown>> {
    const existing = this.#tables.get(d.name);
    if (existing) {
      if (existing.kind !== d.kind) throw new TypeError(`state '${d.name}' is already used as ${existing.kind} state, not ${d.kind}`);
      return existing.state;
    }
    const state = this.#backend.getValueState(new ValueStateDescriptor<Map<WindowKey, unknown>>(`${this.#prefix}${d.name}`));
    this.#tables.set(d.name, { kind: d.kind, state });
    return state;
  }

  /** The current window's value of a state. */
  #get<V>(table: ValueState<Map<WindowKey, unknown>>): V | undefined {
    return table.value()?.get(this.namespace) as V | undefined;
  }

  #set(table: ValueState<Map<WindowKey, unknown>>, value: unknown): void {
    const m = table.value();
    if (m === undefined) table.update(new Map([[this.namespace, value]]));
    else m.set(this.namespace, value);
  }

  #remove(table: ValueState<Map<WindowKey, unknown>>, ns: WindowKey = this.namespace): void {
    const m = table.value();
    if (m === undefined || !m.has(ns)) return;
    m.delete(ns);
    if (m.size === 0) table.clear();
  }

  #handle<H>(d: StateDescriptor, make: (table: ValueState<Map<WindowKey, unknown>>) => H): H {
    const h = this.#handles.get(d.name);
    if (h !== undefined) return h as H;
    const made = make(this.#table(d));
    this.#handles.set(d.name, made);
    return made;
  }

  getState<T>(d: ValueStateDescriptor<T>): ValueState<T> {
    return this.#handle(d, (t) => ({
      value: () => {
        const v = this.#get<T>(t);
        return v !== undefined ? v : d.defaultValue === undefined ? undefined : d.serializer.copy(d.defaultValue);
      },
      update: (v: T) => (v === undefined ? this.#remove(t) : this.#set(t, v)),
      clear: () => this.#remove(t),
    }));
  }

  getListState<T>(d: ListStateDescriptor<T>): ListState<T> {
    return this.#handle(d, (t) => ({
      get: () => this.#get<T[]>(t) ?? [],
      add: (v: T) => {
        const list = this.#get<T[]>(t);
        if (list) list.push(v);
        else this.#set(t, [v]);
      },
      addAll: (vs: readonly T[]) => {
        if (vs.length === 0) return;
        const list = this.#get<T[]>(t);
        if (list) list.push(...vs);
        else this.#set(t, [...vs]);
      },
      update: (vs: readonly T[]) => (vs.length === 0 ? this.#remove(t) : this.#set(t, [...vs])),
      clear: () => this.#remove(t),
    }));
  }

  getMapState<K, V>(d: MapStateDescriptor<K, V>): MapState<K, V> {
    const empty = new Map<K, V>();
    return this.#handle(d, (t) => {
      const current = () => this.#get<Map<K, V>>(t);
      return {
        get: (k: K) => current()?.get(k),
        put: (k: K, v: V) => {
          const m = current();
          if (m) m.set(k, v);
          else this.#set(t, new Map([[k, v]]));
        },
        remove: (k: K) => {
          const m = current();
          if (!m) return;
          m.delete(k);
          if (m.size === 0) this.#remove(t);
        },
        contains: (k: K) => current()?.has(k) ?? false,
        entries: () => (current() ?? empty).entries(),
        keys: () => (current() ?? empty).keys(),
        values: () => (current() ?? empty).values(),
        isEmpty: () => (current()?.size ?? 0) === 0,
        clear: () => this.#remove(t),
      };
    });
  }

  getReducingState<T>(d: ReducingStateDescriptor<T>): ReducingState<T> {
    return this.#handle(d, (t) => ({
      get: () => this.#get<T>(t),
      add: (v: T) => {
        const prev = this.#get<T>(t);
        this.#set(t, prev === undefined ? v : d.reduce(prev, v));
      },
      clear: () => this.#remove(t),
    }));
  }

  getAggregatingState<IN, ACC, OUT>(d: AggregatingStateDescriptor<IN, ACC, OUT>): AggregatingState<IN, OUT> {
    return this.#handle(d, (t) => ({
      get: () => {
        const acc = this.#get<ACC>(t);
        return acc === undefined ? undefined : d.aggregate.getResult(acc);
      },
      add: (v: IN) => this.#set(t, d.aggregate.add(v, this.#get<ACC>(t) ?? d.aggregate.createAccumulator())),
      clear: () => this.#remove(t),
    }));
  }

  /** Windows merged into the current one: their values of a reducing or list state become its (Flink's mergeNamespaces). */
  mergeInto(d: ReducingStateDescriptor<unknown> | ListStateDescriptor<unknown>, sources: readonly WindowKey[]): void {
    const t = this.#table(d);
    const m = t.value();
    if (m === undefined) return;
    let merged = m.get(this.namespace);
    for (const ns of sources) {
      if (ns === this.namespace || !m.has(ns)) continue;
      const v = m.get(ns);
      merged = merged === undefined ? v : d.kind === 'reducing' ? d.reduce(merged, v) : [...(merged as unknown[]), ...(v as unknown[])];
      this.#remove(t, ns);
    }
    if (merged !== undefined) this.#set(t, merged);
  }
}
