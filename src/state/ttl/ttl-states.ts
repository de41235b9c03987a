import type { AggregatingState, ListState, MapState, ReducingState, ValueState } from '../../api/state.ts';
import type {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateDescriptor,
  ValueStateDescriptor,
} from '../../api/state-descriptors.ts';
import type { StateTtlConfig } from '../../api/state-ttl-config.ts';
import type { KeyedStateBackend } from '../keyed-state-backend.ts';
import { ttlStoredDescriptor, type TtlStoredDescriptor } from './ttl-stored-descriptor.ts';
import { isExpired, type TtlValue } from './ttl-value.ts';

/**
 * The state handles of descriptors with a time to live (Flink's TtlStateFactory and its
 * decorators), for any backend: each wraps the backend's own handle of the stored form
 * (ttl-stored-descriptor.ts), stamps what is written with `now()`, and on a read drops what has
 * expired (cleanup on read, always on, as in Flink). Incremental cleanup walks the state's
 * entries a few per access (and per record, when asked) through the backend's sweep.
 */
export class TtlStates {
  readonly #backend: KeyedStateBackend;
  readonly #now: () => number;
  /** The per-record sweeps, one per state (a state asked for again does not add another). */
  readonly #everyRecord = new Map<string, () => void>();
  #perRecord: Array<() => void> = [];
  /** Whether any state is cleaned up per record: backends read it before calling onRecord (setCurrentKey is on every record's path). */
  cleansPerRecord = false;

  constructor(backend: KeyedStateBackend, now: () => number) {
    this.#backend = backend;
    this.#now = now;
  }

  /** A record is being processed: states cleaned up for every record take their step. */
  onRecord(): void {
    const sweeps = this.#perRecord;
    for (let i = 0; i < sweeps.length; i++) sweeps[i]!();
  }

  #prepare(d: StateDescriptor, config: StateTtlConfig): { stored: TtlStoredDescriptor; step: () => void } {
    const stored = ttlStoredDescriptor(d, config);
    const incremental = config.cleanup.incremental;
    if (incremental === undefined) return { stored, step: () => {} };
    const backend = this.#backend;
    const step = (): void => backend.sweep(d.name, incremental.cleanupSize, stored.ttl.expire(this.#now()));
    if (incremental.everyRecord && !this.#everyRecord.has(d.name)) {
      this.#everyRecord.set(d.name, step);
      this.#perRecord = [...this.#everyRecord.values()];
      this.cleansPerRecord = true;
    }
    return { stored, step };
  }

  value<T>(d: ValueStateDescriptor<T>, config: StateTtlConfig): ValueState<T> {
    const { stored, step } = this.#prepare(d, config);
    const inner = this.#backend.getValueState(stored as unknown as ValueStateDescriptor<TtlValue<T>>);
    const read = this.#valueReader(inner, config);
    const now = this.#now;
    return {
      value: () => {
        step();
        const v = read();
        if (v !== undefined) return v;
        return d.defaultValue === undefined ? undefined : d.serializer.copy(d.defaultValue);
      },
      update: (value) => {
        step();
        if (value === undefined) inner.clear();
        else inner.update({ v: value, t: now() });
      },
      clear: () => inner.clear(),
    };
  }

  reducing<T>(d: ReducingStateDescriptor<T>, config: StateTtlConfig): ReducingState<T> {
    const { stored, step } = this.#prepare(d, config);
    const inner = this.#backend.getValueState(stored as unknown as ValueStateDescriptor<TtlValue<T>>);
    const read = this.#valueReader(inner, config);
    const unexpired = this.#valueReader(inner, config, true);
    const now = this.#now;
    return {
      get: () => {
        step();
        return read();
      },
      add: (value) => {
        step();
        // As Flink's TtlReduceFunction: an expired accumulated value is not folded into the new one.
        const prev = unexpired();
        inner.update({ v: prev === undefined ? value : d.reduce(prev, value), t: now() });
      },
      clear: () => inner.clear(),
    };
  }

  aggregating<IN, ACC, OUT>(d: AggregatingStateDescriptor<IN, ACC, OUT>, config: StateTtlConfig): AggregatingState<IN, OUT> {
    const { stored, step } = this.#prepare(d, config);
    const inner = this.#backend.getValueState(stored as unknown as ValueStateDescriptor<TtlValue<ACC>>);
    const read = this.#valueReader(inner, config);
    const unexpired = this.#valueReader(inner, config, true);
    const now = this.#now;
    return {
      get: () => {
        step();
        const acc = read();
        return acc === undefined ? undefined : d.aggregate.getResult(acc);
      },
      add: (value) => {
        step();
        inner.update({ v: d.aggregate.add(value, unexpired() ?? d.aggregate.createAccumulator()), t: now() });
      },
      clear: () => inner.clear(),
    };
  }

  /**
   * Flink's getWithTtlCheckAndUpdate: an expired value is removed and returned only with
   * ReturnExpiredIfNotCleanedUp (never when `neverExpired`); a live one is stamped again on read
   * with OnReadAndWrite.
   */
  #valueReader<T>(inner: ValueState<TtlValue<T>>, config: StateTtlConfig, neverExpired = false): () => T | undefined {
    const now = this.#now;
    const returnExpired = !neverExpired && config.stateVisibility === 'ReturnExpiredIfNotCleanedUp';
    const onRead = config.updateType === 'OnReadAndWrite';
    return () => {
      const x = inner.value();
      if (x === undefined) return undefined;
      const t = now();
      if (isExpired(x.t, config.ttlMs, t)) {
        inner.clear();
        return returnExpired ? x.v : undefined;
      }
      if (onRead) inner.update({ v: x.v, t });
      return x.v;
    };
  }

  list<T>(d: ListStateDescriptor<T>, config: StateTtlConfig): ListState<T> {
    const { stored, step } = this.#prepare(d, config);
    const inner = this.#backend.getListState(stored as unknown as ListStateDescriptor<TtlValue<T>>);
    const now = this.#now;
    const returnExpired = config.stateVisibility === 'ReturnExpiredIfNotCleanedUp';
    const onRead = config.updateType === 'OnReadAndWrite';
    return {
      get: () => {
        step();
        const all = inner.get();
        if (all.length === 0) return [];
        const t = now();
        const live = all.filter((e) => !isExpired(e.t, config.ttlMs, t));
        const result = (returnExpired ? all : live).map((e) => e.v);
        if (onRead) inner.update(live.map((e) => ({ v: e.v, t })));
        else if (live.length < all.length) inner.update(live);
        return result;
      },
      add: (value) => {
        step();
        inner.add({ v: value, t: now() });
      },
      addAll: (values) => {
        step();
        const t = now();
        inner.addAll(values.map((v) => ({ v, t })));
      },
      update: (values) => {
        step();
        const t = now();
        inner.update(values.map((v) => ({ v, t })));
      },
      clear: () => inner.clear(),
    };
  }

  map<K, V>(d: MapStateDescriptor<K, V>, config: StateTtlConfig): MapState<K, V> {
    const { stored, step } = this.#prepare(d, config);
    const inner = this.#backend.getMapState(stored as unknown as MapStateDescriptor<K, TtlValue<V>>);
    const now = this.#now;
    const returnExpired = config.stateVisibility === 'ReturnExpiredIfNotCleanedUp';
    const onRead = config.updateType === 'OnReadAndWrite';
    /** One entry as a read sees it: removed and (per visibility) hidden when expired, stamped again on OnReadAndWrite. */
    const live = (k: K, x: TtlValue<V> | undefined, t: number): TtlValue<V> | undefined => {
      if (x === undefined) return undefined;
      if (isExpired(x.t, config.ttlMs, t)) {
        inner.remove(k);
        return returnExpired ? x : undefined;
      }
      if (onRead) inner.put(k, { v: x.v, t });
      return x;
    };
    const entries = (): Array<[K, V]> => {
      step();
      const t = now();
      // Collected first: expired entries are removed while going through them.
      const out: Array<[K, V]> = [];
      for (const [k, x] of [...inner.entries()]) {
        const e = live(k, x, t);
        if (e !== undefined) out.push([k, e.v]);
      }
      return out;
    };
    return {
      get: (k) => {
        step();
        return live(k, inner.get(k), now())?.v;
      },
      put: (k, v) => {
        step();
        inner.put(k, { v, t: now() });
      },
      remove: (k) => {
        step();
        inner.remove(k);
      },
      contains: (k) => {
        step();
        return live(k, inner.get(k), now()) !== undefined;
      },
      entries: () => entries()[Symbol.iterator](),
      keys: () => entries().map(([k]) => k)[Symbol.iterator](),
      values: () => entries().map(([, v]) => v)[Symbol.iterator](),
      isEmpty: () => entries().length === 0,
      clear: () => inner.clear(),
    };
  }
}
