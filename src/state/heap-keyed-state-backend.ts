import type {
  AggregatingState,
  ListState,
  MapState,
  ReducingState,
  ValueState,
} from '../api/state.ts';
import type {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateDescriptor,
  ValueStateDescriptor,
} from '../api/state-descriptors.ts';
import { type Key, type KeyGroupRange, keyGroupFor } from './key-group.ts';
import { KeyedStateError } from './keyed-state-error.ts';
import { stateKey, userKey } from './state-key.ts';
import { restoredStateConversion } from './restored-state-conversion.ts';
import { StateTable } from './state-table.ts';
import { storedStateInfo, type KeyedStateInfo } from './stored-state-info.ts';
import type { ReduceFunction } from '../api/functions.ts';
import { passthroughSerializer } from './passthrough-serializer.ts';
import type { CapturedKeyedState } from './captured-state.ts';
import type { KeyedStateHandle } from '../checkpoint/state-handles.ts';
import type { InPlaceAggregate } from './in-place-aggregate.ts';
import type { KeyedStateBackend, RestoredEntrySink, StoredStateInfo } from './keyed-state-backend.ts';
import { TtlStates } from './ttl/ttl-states.ts';
import { CHECKPOINT_CLEANUP_ENTRIES, checkpointCleanup, withSnapshotCleanup } from './ttl/ttl-snapshot-cleanup.ts';
import type { Entry } from './state-table.ts';
import { IncrementalSnapshots, type MaterializationPolicy, type SnapshotRequest } from './incremental/incremental-snapshots.ts';
import type { RestoredChain } from './incremental/restored-chain.ts';
import { heapDeltaTables } from './heap-delta-tables.ts';
import { snapshotOf } from '../serialization/serializer-snapshot.ts';
import type { TypeSerializer } from '../api/serializer.ts';

export type { StoredStateInfo } from './keyed-state-backend.ts';

export interface RegisteredState {
  descriptor: StateDescriptor;
  readonly table: StateTable<unknown>;
  /** Set while the state holds restored values not yet claimed by the operator's descriptor. */
  restoredAs: StoredStateInfo | undefined;
}


/** Changed entries, as a share of all, above which an incremental checkpoint writes a full base rather than a delta. */
const DENSE_CHANGES = 0.2;

/**
 * Keyed state on the heap for one operator of one subtask. Every state is a StateTable split by
 * key group; handles read and write the entry of the current key.
 */
export class HeapKeyedStateBackend implements KeyedStateBackend {
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  readonly states = new Map<string, RegisteredState>();
  /** The current key as the tables hold it (stateKey), and as the key selector returned it. */
  #currentKey: Key = undefined;
  #userKey: Key = undefined;
  #currentIndex = -1;
  readonly uid: string;
  readonly #describe: () => string;
  readonly #now: () => number;
  readonly #ttl: TtlStates;
  /** Where each state's incremental TTL cleanup goes on from: a key group and a place in its Map. */
  readonly #sweeps = new Map<string, { keyGroup: number; at: Iterator<[Key, Entry<unknown>]> | undefined }>();
  /**
   * Incremental checkpoints (undefined: off): the tables track the keys changed between
   * snapshots, and a checkpoint writes those since its base as a delta (heap-delta-tables.ts), a
   * full base again after max-deltas (FLIP-158's changelog, materialized).
   */
  readonly #incremental: IncrementalSnapshots | undefined;

  constructor(keyGroupRange: KeyGroupRange, maxParallelism: number, uid: string, describe: () => string, now: () => number = Date.now, incremental: MaterializationPolicy | null = null) {
    this.keyGroupRange = keyGroupRange;
    this.maxParallelism = maxParallelism;
    this.uid = uid;
    this.#describe = describe;
    this.#now = now;
    this.#ttl = new TtlStates(this, now);
    this.#incremental = incremental === null ? undefined : new IncrementalSnapshots(incremental);
  }

  #newTable(copy: (v: unknown) => unknown): StateTable<unknown> {
    const table = new StateTable<unknown>(this.keyGroupRange.end - this.keyGroupRange.start + 1, copy);
    if (this.#incremental !== undefined) table.trackChanges();
    return table;
  }

  restoredChain(chain: RestoredChain): void {
    this.#incremental?.restored(chain, this.keyGroupRange);
  }

  /** Puts restored entries of one key group back; they stay in stored form until the state is registered. */
  restoreEntries(info: KeyedStateInfo, keyGroup: number, entries: ReadonlyArray<readonly [Key, unknown]>): void {
    const put = this.restoreTarget(storedStateInfo(info), keyGroup);
    for (const [key, value] of entries) put(stateKey(key), value);
  }

  /**
   * State files hold keys as the tables do (composite keys as their strings), so entries go in
   * as they come, without a lookup first (a restore fills empty tables).
   */
  restoreTarget(info: StoredStateInfo, keyGroup: number): RestoredEntrySink {
    const table = this.#restoredTable(info);
    const index = keyGroup - this.keyGroupRange.start;
    if (index < 0 || keyGroup > this.keyGroupRange.end) {
      throw new KeyedStateError(`key group ${keyGroup} of state '${info.name}' was restored into ${this.#describe()}, which owns key groups ${this.keyGroupRange.start}..${this.keyGroupRange.end}`, info.name);
    }
    return (key, value) => table.load(index, key, value);
  }

  #restoredTable(info: StoredStateInfo): StateTable<unknown> {
    let state = this.states.get(info.name);
    if (!state) {
      const descriptor = { kind: info.kind, name: info.name, serializer: passthroughSerializer(info), type: undefined, upgrade: undefined } as unknown as StateDescriptor;
      state = { descriptor, table: this.#newTable((v) => v), restoredAs: info };
      this.states.set(info.name, state);
    }
    return state.table;
  }

  setCurrentKey(key: Key): void {
    // murmur over a key costs less than finding the key in a map of recent key groups (measured
    // with a keyed process function over DataGen words), and needs no memory.
    this.#currentIndex = this.#indexOf(key, keyGroupFor(key, this.maxParallelism));
    this.#userKey = key;
    this.#currentKey = stateKey(key);
    if (this.#ttl.cleansPerRecord) this.#ttl.onRecord();
  }

  /** The index of a key's key group in this subtask's range; a key of another subtask is an error. */
  #indexOf(key: Key, kg: number): number {
    const index = kg - this.keyGroupRange.start;
    if (index < 0 || kg > this.keyGroupRange.end) {
      throw new KeyedStateError(
        `key ${JSON.stringify(key)} (key group ${kg}) reached ${this.#describe()}, which owns key groups ${this.keyGroupRange.start}..${this.keyGroupRange.end}: the key selector must return the same key for a record every time it is called`,
      );
    }
    return index;
  }

  get currentKey(): Key {
    return this.#userKey;
  }

  valueFolder<T>(descriptor: ValueStateDescriptor<T>, fn: ReduceFunction<T>): (key: Key, value: T) => T {
    const table = this.#register(descriptor) as StateTable<T>;
    // The table caches entries by key, so the key group is only computed for keys it has not seen.
    const place = (key: Key): number => this.#indexOf(key, keyGroupFor(key, this.maxParallelism));
    return (key, value) => (Array.isArray(key) ? table.fold(stateKey(key), value, fn, () => place(key)) : table.fold(key, value, fn, place));
  }

  inPlaceFolder<S, T>(descriptor: ValueStateDescriptor<T>, form: InPlaceAggregate<S, T>): (key: Key, value: T) => T {
    const table = this.#register(descriptor) as unknown as StateTable<S>;
    // Restored entries hold what snapshots write; from now on the table holds the form's states.
    for (const map of table.maps) for (const entry of map.values()) entry.value = form.fromStored(entry.value as unknown as T);
    table.useCopy((state) => form.copy(state));
    table.storeAs((state) => form.toStored(state));
    const place = (key: Key): number => this.#indexOf(key, keyGroupFor(key, this.maxParallelism));
    return (key, value) => (Array.isArray(key) ? table.foldInPlace(stateKey(key), value, form, () => place(key)) : table.foldInPlace(key, value, form, place));
  }

  keysOf(stateName: string): Key[] {
    const table = this.states.get(stateName)?.table;
    if (!table) return [];
    const keys: Key[] = [];
    for (const map of table.maps) for (const key of map.keys()) keys.push(userKey(key));
    return keys;
  }

  snapshot(request?: SnapshotRequest): CapturedKeyedState {
    const base = { uid: this.uid, keyGroupRange: this.keyGroupRange, maxParallelism: this.maxParallelism };
    const now = this.#now();
    const full = (incrementalBase = false) => withSnapshotCleanup([...this.states.values()].map((s) => ({ descriptor: s.descriptor, snapshot: s.table.snapshot() })), now, incrementalBase);
    const incremental = this.#incremental;
    if (incremental === undefined) return { ...base, tables: full() };
    // Before the changes are taken: what the cleanup removes is among the keys this checkpoint's delta writes.
    if (request?.type === 'checkpoint' && request.incrementalBase !== undefined) this.#cleanUpExpired(now);
    this.#takeChanges(incremental, request);
    const plan = incremental.plan(request);
    if (plan === undefined) return { ...base, tables: full() };
    const written = (handle: KeyedStateHandle) => incremental.written(plan.checkpointId, handle);
    if (plan.changed === null) return { ...base, tables: full(true), incremental: { plan, tables: [], written } };
    // A delta: no copy-on-write snapshot of the whole tables; the writer reads the delta's (its own) tables only.
    const tables = heapDeltaTables(this.states.values(), this.keyGroupRange, plan.changed, now);
    return { ...base, tables, incremental: { plan, tables, written } };
  }

  /**
   * The keys each table changed since the last snapshot go to the incremental side, by key group.
   * When a checkpoint finds more than DENSE_CHANGES of the entries changed, it is a full base
   * instead (copy-on-write, nothing copied in the synchronous part): a delta's synchronous part
   * is O(changed), and with every key changed between checkpoints (the checkpoint bench, 1M keys)
   * deltas ran at 0.28x of no checkpoints against 0.45x for full ones, pauses of seconds.
   */
  #takeChanges(incremental: IncrementalSnapshots, request: SnapshotRequest | undefined): void {
    const changes = [...this.states].map(([name, s]) => [name, s.table.takeChanges(), s.table.size] as const);
    const changed = changes.reduce((n, c) => n + c[1].size, 0);
    const entries = changes.reduce((n, c) => n + c[2], 0);
    if (request?.type === 'checkpoint' && request.incrementalBase !== undefined && changed > DENSE_CHANGES * entries) {
      // A full base holds these changes; until one completes, no checkpoint builds on an older one.
      incremental.requireFull();
      return;
    }
    for (const [name, keys] of changes) for (const key of keys) incremental.markDirty(name, keyGroupFor(userKey(key), this.maxParallelism), key);
  }

  /**
   * State TTL's cleanup in the background at an incremental checkpoint, as on lmdb (Flink's
   * RocksDB compaction filter): expired entries of TTL states that clean up in the background,
   * CHECKPOINT_CLEANUP_ENTRIES read per state, are removed, so deltas write them as removed, also
   * those of keys no record touches again.
   */
  #cleanUpExpired(now: number): void {
    for (const [name, s] of this.states) {
      const expire = checkpointCleanup(s.descriptor, now);
      if (expire !== undefined) this.sweep(name, CHECKPOINT_CLEANUP_ENTRIES, expire);
    }
  }

  sweep(stateName: string, count: number, fn: (value: unknown) => unknown): void {
    const table = this.states.get(stateName)?.table;
    if (table === undefined) return;
    let cursor = this.#sweeps.get(stateName);
    if (cursor === undefined) this.#sweeps.set(stateName, (cursor = { keyGroup: 0, at: undefined }));
    const groups = table.maps.length;
    // A Map's iterator stays valid while entries are removed or changed; a table with fewer
    // entries than `count` is gone round once, not again and again.
    let visited = 0;
    let stepped = 0;
    while (visited < count && stepped < groups) {
      cursor.at ??= table.maps[cursor.keyGroup]!.entries();
      const next = cursor.at.next();
      if (next.done === true) {
        cursor.at = undefined;
        cursor.keyGroup = (cursor.keyGroup + 1) % groups;
        stepped++;
        continue;
      }
      visited++;
      const [key, entry] = next.value;
      const value = fn(entry.value);
      if (value === undefined) table.remove(cursor.keyGroup, key);
      else if (value !== entry.value) table.put(cursor.keyGroup, key, value);
    }
  }

  close(): void {
    this.states.clear();
    this.#sweeps.clear();
  }

  hasState(name: string): boolean {
    return this.states.has(name);
  }

  *entries<V>(descriptor: StateDescriptor): Generator<[Key, V]> {
    const table = this.states.get(descriptor.name)?.table;
    if (table === undefined) return;
    for (const map of table.maps) for (const [key, entry] of map) yield [key, entry.value as V];
  }

  #register(descriptor: StateDescriptor): StateTable<unknown> {
    const existing = this.states.get(descriptor.name);
    if (existing) {
      const stored = existing.restoredAs;
      if (existing.descriptor.kind !== descriptor.kind) {
        throw new KeyedStateError(
          `state '${descriptor.name}' of operator uid '${this.uid}' is ${stored ? 'stored' : 'already registered'} as ${existing.descriptor.kind} state, not ${descriptor.kind}`,
          descriptor.name,
        );
      }
      if (stored) {
        // A state whose serializer changed (so its info in the files): a delta cannot follow files written with the other.
        if (JSON.stringify(stored.snapshot) !== JSON.stringify(snapshotOf(descriptor.serializer as TypeSerializer<unknown>))) this.#incremental?.requireFull();
        this.#claim(existing, stored, descriptor);
        existing.descriptor = descriptor;
        existing.restoredAs = undefined;
        existing.table.useCopy(descriptor.serializer.copy as (v: unknown) => unknown);
      }
      return existing.table;
    }
    const table = this.#newTable(descriptor.serializer.copy as (v: unknown) => unknown);
    this.states.set(descriptor.name, { descriptor, table, restoredAs: undefined });
    return table;
  }

  /** Converts restored values into the descriptor's form (restored-state-conversion.ts), or fails naming both serializers. */
  #claim(state: RegisteredState, stored: StoredStateInfo, descriptor: StateDescriptor): void {
    const convert = restoredStateConversion(this.uid, descriptor, stored.snapshot);
    if (convert === undefined) return;
    for (const map of state.table.maps) for (const [key, entry] of map) entry.value = convert(entry.value, key);
  }

  /** States restored but never asked for by the operator still belong in the next snapshot. */
  get unclaimedStates(): string[] {
    return [...this.states.values()].filter((s) => s.restoredAs).map((s) => s.descriptor.name);
  }

  #checkKey(name: string): number {
    if (this.#currentIndex < 0) throw new KeyedStateError(`keyed state '${name}' was used outside of processing a keyed record`, name);
    return this.#currentIndex;
  }

  getValueState<T>(d: ValueStateDescriptor<T>): ValueState<T> {
    if (d.ttlConfig !== undefined) return this.#ttl.value(d, d.ttlConfig);
    const table = this.#register(d) as StateTable<T>;
    return {
      value: () => {
        const v = table.get(this.#checkKey(d.name), this.#currentKey);
        if (v !== undefined) return v;
        // A copy, as Flink hands out: a caller that mutates it must not change every key's default.
        return d.defaultValue === undefined ? undefined : d.serializer.copy(d.defaultValue);
      },
      update: (value) => {
        if (value === undefined) table.remove(this.#checkKey(d.name), this.#currentKey);
        else table.put(this.#checkKey(d.name), this.#currentKey, value);
      },
      clear: () => table.remove(this.#checkKey(d.name), this.#currentKey),
    };
  }

  getListState<T>(d: ListStateDescriptor<T>): ListState<T> {
    if (d.ttlConfig !== undefined) return this.#ttl.list(d, d.ttlConfig);
    const table = this.#register(d) as StateTable<T[]>;
    const current = (): T[] | undefined => table.get(this.#checkKey(d.name), this.#currentKey);
    return {
      get: () => current() ?? [],
      add: (value) => {
        const list = current();
        if (list) list.push(value);
        else table.put(this.#currentIndex, this.#currentKey, [value]);
      },
      addAll: (values) => {
        if (values.length === 0) return;
        const list = current();
        if (list) list.push(...values);
        else table.put(this.#currentIndex, this.#currentKey, [...values]);
      },
      update: (values) => {
        if (values.length === 0) table.remove(this.#checkKey(d.name), this.#currentKey);
        else table.put(this.#checkKey(d.name), this.#currentKey, [...values]);
      },
      clear: () => table.remove(this.#checkKey(d.name), this.#currentKey),
    };
  }

  getMapState<K, V>(d: MapStateDescriptor<K, V>): MapState<K, V> {
    if (d.ttlConfig !== undefined) return this.#ttl.map(d, d.ttlConfig);
    const table = this.#register(d) as StateTable<Map<K, V>>;
    const current = (): Map<K, V> | undefined => table.get(this.#checkKey(d.name), this.#currentKey);
    const empty = new Map<K, V>();
    return {
      get: (k) => current()?.get(k),
      put: (k, v) => {
        const m = current();
        if (m) m.set(k, v);
        else table.put(this.#currentIndex, this.#currentKey, new Map([[k, v]]));
      },
      remove: (k) => {
        const m = current();
        if (!m) return;
        m.delete(k);
        if (m.size === 0) table.remove(this.#currentIndex, this.#currentKey);
      },
      contains: (k) => current()?.has(k) ?? false,
      entries: () => (current() ?? empty).entries(),
      keys: () => (current() ?? empty).keys(),
      values: () => (current() ?? empty).values(),
      isEmpty: () => (current()?.size ?? 0) === 0,
      clear: () => table.remove(this.#checkKey(d.name), this.#currentKey),
    };
  }

  getReducingState<T>(d: ReducingStateDescriptor<T>): ReducingState<T> {
    if (d.ttlConfig !== undefined) return this.#ttl.reducing(d, d.ttlConfig);
    const table = this.#register(d) as StateTable<T>;
    return {
      get: () => table.get(this.#checkKey(d.name), this.#currentKey),
      add: (value) => {
        const kg = this.#checkKey(d.name);
        const prev = table.get(kg, this.#currentKey);
        table.put(kg, this.#currentKey, prev === undefined ? value : d.reduce(prev, value));
      },
      clear: () => table.remove(this.#checkKey(d.name), this.#currentKey),
    };
  }

  getAggregatingState<IN, ACC, OUT>(d: AggregatingStateDescriptor<IN, ACC, OUT>): AggregatingState<IN, OUT> {
    if (d.ttlConfig !== undefined) return this.#ttl.aggregating(d, d.ttlConfig);
    const table = this.#register(d) as StateTable<ACC>;
    return {
      get: () => {
        const acc = table.get(this.#checkKey(d.name), this.#currentKey);
        return acc === undefined ? undefined : d.aggregate.getResult(acc);
      },
      add: (value) => {
        const kg = this.#checkKey(d.name);
        const acc = table.get(kg, this.#currentKey) ?? d.aggregate.createAccumulator();
        table.put(kg, this.#currentKey, d.aggregate.add(value, acc));
      },
      clear: () => table.remove(this.#checkKey(d.name), this.#currentKey),
    };
  }
}
