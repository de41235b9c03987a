import { readdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RootDatabase } from 'lmdb';
import type { ReduceFunction } from '../../api/functions.ts';
import type { AggregatingState, ListState, MapState, ReducingState, ValueState } from '../../api/state.ts';
import type {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateDescriptor,
  ValueStateDescriptor,
} from '../../api/state-descriptors.ts';
import type { TypeSerializer } from '../../api/serializer.ts';
import { describeValue } from '../../serialization/describe-value.ts';
import { snapshotOf } from '../../serialization/serializer-snapshot.ts';
import { SerializationError } from '../../serialization/serialization-error.ts';
import type { CapturedKeyedState } from '../captured-state.ts';
import type { InPlaceAggregate } from '../in-place-aggregate.ts';
import { type Key, type KeyGroupRange, keyGroupFor } from '../key-group.ts';
import type { KeyedStateBackend, LocalStateFigures, RestoredEntrySink } from '../keyed-state-backend.ts';
import { KeyedStateError } from '../keyed-state-error.ts';
import { passthroughSerializer } from '../passthrough-serializer.ts';
import { restoredStateConversion } from '../restored-state-conversion.ts';
import { stateKey, userKey } from '../state-key.ts';
import type { StoredStateInfo } from '../stored-state-info.ts';
import { currentKeyHandles, type CurrentValue } from './current-key-handles.ts';
import { LocalStateStorageError, type LocalStateStorageOperation } from './local-state-storage-error.ts';
import { lmdbNative } from './lmdb-native.ts';
import { lmdbTableSnapshot } from './lmdb-table-snapshot.ts';
import { lmdbDeltaTables, once } from './lmdb-delta-tables.ts';
import { LmdbSnapshotThread } from './lmdb-snapshot-writer.ts';
import { LMDB_STORE_OPTIONS } from './lmdb-store-options.ts';
import { entriesTable } from '../incremental/entries-table.ts';
import { isTtlStored } from '../ttl/ttl-stored-descriptor.ts';
import { IncrementalSnapshots, type IncrementalPlan, type MaterializationPolicy, type SnapshotRequest } from '../incremental/incremental-snapshots.ts';
import { removedKeysDescriptor } from '../../checkpoint/incremental/removed-keys.ts';
import type { KeyedStateHandle } from '../../checkpoint/state-handles.ts';
import type { RestoredChain } from '../incremental/restored-chain.ts';
import type { DirtyKeys } from '../incremental/dirty-keys.ts';
import { type CachedEntry, StateCache } from './state-cache.ts';
import { decodeStateKey, encodeStateKey, statePrefix } from './state-key-bytes.ts';
import { TtlStates } from '../ttl/ttl-states.ts';
import { type CompactionCursor, expiredEntries } from './ttl-compaction.ts';
import { CHECKPOINT_CLEANUP_ENTRIES, checkpointCleanup, deltaCleanup, withSnapshotCleanup } from '../ttl/ttl-snapshot-cleanup.ts';
import { descriptorValueBytes, inPlaceValueBytes, storedValueBytes, type StateValueBytes } from './state-value-bytes.ts';


interface LmdbState {
  /** The state's id in the store's keys (state-key-bytes.ts). */
  readonly id: number;
  descriptor: StateDescriptor;
  bytes: StateValueBytes;
  /** Set while the state holds restored values not yet claimed by the operator's descriptor. */
  restoredAs: StoredStateInfo | undefined;
  readonly cache: StateCache;
  /** Changed entries that left the cache, written together once there are WRITE_BATCH of them (or at a snapshot). */
  readonly leaving: Map<Key, CachedEntry>;
  /** Entries written to the store since the state's last TTL compaction (its budget grows with them). */
  written: number;
}

export interface LmdbKeyedStateBackendOptions {
  /** The store's own directory: created, and removed when the backend is closed. */
  readonly path: string;
  /** state.backend.lmdb.cache-entries: decoded entries kept per state. */
  readonly cacheEntries: number;
  /** The processing time state TTL goes by (Date.now when not given). */
  readonly now?: () => number;
  /** Incremental checkpoints (null or absent: off): changed keys are tracked for deltas. */
  readonly incremental?: MaterializationPolicy | null;
  /** state.backend.lmdb.snapshot-thread: snapshots are written by the lmdb snapshot thread (lmdb-snapshot-writer.ts). */
  readonly snapshotThread: boolean;
}

/** LMDB's longest key (its compile-time default, which the npm binaries keep). */
const MAX_KEY_BYTES = 511;
/** Restored entries gathered before they are written in one transaction. */
const RESTORE_BATCH = 8192;
/** Changed entries that left a cache, gathered before they are written in one transaction (a commit costs tens of microseconds). */
const WRITE_BATCH = 1024;


/**
 * Keyed state of one operator in one subtask in an embedded LMDB store on local disk, so the
 * state may be far larger than the heap: only `cacheEntries` decoded entries per state stay in
 * memory. Entries are keyed by key group first (state-key-bytes.ts) and valued by the state's
 * serializer. Handles read and change the cached entry of the current key; changed entries go to
 * the store when they leave the cache and at each snapshot, whose synchronous part writes them
 * and opens a read transaction that the asynchronous part reads. Snapshots and restores speak
 * the heap backend's format (TableSnapshot, restoreTarget), so a checkpoint or savepoint of one
 * restores on the other.
 */
export class LmdbKeyedStateBackend implements KeyedStateBackend {
  readonly uid: string;
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  readonly #describe: () => string;
  readonly #options: LmdbKeyedStateBackendOptions;
  readonly #db: RootDatabase<Buffer, Buffer>;
  readonly #states = new Map<string, LmdbState>();
  #userKey: Key = undefined;
  #currentKey: Key = undefined;
  #currentKeyGroup = -1;
  /** Restored entries not yet written: state, key group, key, value. */
  #restoring: unknown[] = [];
  #openSnapshots = 0;
  #closed = false;
  readonly #now: () => number;
  readonly #ttl: TtlStates;
  /** Where each state's incremental TTL cleanup goes on from: a key group and the last key visited in it. */
  readonly #sweeps = new Map<string, { keyGroup: number; after: Buffer | undefined }>();
  /** Where each TTL state's compaction at checkpoints goes on from. */
  readonly #compactions = new Map<string, CompactionCursor>();
  #cacheHits = 0;
  #cacheMisses = 0;
  /** Incremental checkpoints: the keys changed between snapshots and the handles written (undefined: off). */
  readonly #incremental: IncrementalSnapshots | undefined;

  constructor(keyGroupRange: KeyGroupRange, maxParallelism: number, uid: string, describe: () => string, options: LmdbKeyedStateBackendOptions) {
    this.keyGroupRange = keyGroupRange;
    this.maxParallelism = maxParallelism;
    this.uid = uid;
    this.#describe = describe;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#ttl = new TtlStates(this, this.#now);
    this.#incremental = options.incremental ? new IncrementalSnapshots(options.incremental) : undefined;
    this.#db = this.#storage('open', () => lmdbNative().open<Buffer, Buffer>({ path: options.path, ...LMDB_STORE_OPTIONS }));
  }

  /** Runs an operation on the store; its failures (a full disk, an unwritable directory) become a LocalStateStorageError naming the path. */
  #storage<T>(operation: LocalStateStorageOperation, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof SerializationError || e instanceof KeyedStateError) throw e;
      throw new LocalStateStorageError(this.uid, this.#options.path, operation, e, this.#closed);
    }
  }

  get currentKey(): Key {
    return this.#userKey;
  }

  setCurrentKey(key: Key): void {
    this.#currentKeyGroup = this.#keyGroupOf(key);
    this.#userKey = key;
    this.#currentKey = stateKey(key);
    if (this.#ttl.cleansPerRecord) this.#ttl.onRecord();
  }

  #keyGroupOf(key: Key): number {
    const kg = keyGroupFor(key, this.maxParallelism);
    if (kg < this.keyGroupRange.start || kg > this.keyGroupRange.end) {
      throw new KeyedStateError(
        `key ${JSON.stringify(key)} (key group ${kg}) reached ${this.#describe()}, which owns key groups ${this.keyGroupRange.start}..${this.keyGroupRange.end}: the key selector must return the same key for a record every time it is called`,
      );
    }
    return kg;
  }

  getValueState<T>(d: ValueStateDescriptor<T>): ValueState<T> {
    if (d.ttlConfig !== undefined) return this.#ttl.value(d, d.ttlConfig);
    return currentKeyHandles.value(d, this.#current<T>(d));
  }

  getListState<T>(d: ListStateDescriptor<T>): ListState<T> {
    if (d.ttlConfig !== undefined) return this.#ttl.list(d, d.ttlConfig);
    return currentKeyHandles.list(this.#current<T[]>(d));
  }

  getMapState<K, V>(d: MapStateDescriptor<K, V>): MapState<K, V> {
    if (d.ttlConfig !== undefined) return this.#ttl.map(d, d.ttlConfig);
    return currentKeyHandles.map(this.#current<Map<K, V>>(d));
  }

  getReducingState<T>(d: ReducingStateDescriptor<T>): ReducingState<T> {
    if (d.ttlConfig !== undefined) return this.#ttl.reducing(d, d.ttlConfig);
    return currentKeyHandles.reducing(d, this.#current<T>(d));
  }

  getAggregatingState<IN, ACC, OUT>(d: AggregatingStateDescriptor<IN, ACC, OUT>): AggregatingState<IN, OUT> {
    if (d.ttlConfig !== undefined) return this.#ttl.aggregating(d, d.ttlConfig);
    return currentKeyHandles.aggregating(d, this.#current<ACC>(d));
  }

  /** The current key's entry of a state, as the handles use it. */
  #current<V>(d: StateDescriptor): CurrentValue<V> {
    const state = this.#register(d);
    const entry = (): CachedEntry => {
      if (this.#currentKeyGroup < 0) throw new KeyedStateError(`keyed state '${d.name}' was used outside of processing a keyed record`, d.name);
      return this.#entry(state, this.#currentKeyGroup, this.#currentKey);
    };
    return {
      read: () => {
        const e = entry();
        // The caller may change an object it reads in place: it goes back to the store as changed.
        if (typeof e.value === 'object' && e.value !== null) touch(e);
        return e.value as V | undefined;
      },
      write: (value) => {
        const e = entry();
        e.value = value;
        touch(e);
      },
    };
  }

  valueFolder<T>(descriptor: ValueStateDescriptor<T>, fn: ReduceFunction<T>): (key: Key, value: T) => T {
    const state = this.#register(descriptor);
    return (key, value) => {
      const e = this.#entry(state, this.#keyGroupOf(key), stateKey(key));
      e.value = e.value === undefined ? value : fn(e.value as T, value);
      touch(e);
      return e.value as T;
    };
  }

  inPlaceFolder<S, T>(descriptor: ValueStateDescriptor<T>, form: InPlaceAggregate<S, T>): (key: Key, value: T) => T {
    const state = this.#register(descriptor);
    // Entries cached so far hold what snapshots write; from now on the cache holds the form's states.
    this.#flush([state]);
    state.cache.clear();
    state.leaving.clear();
    state.bytes = inPlaceValueBytes(descriptor.serializer, form);
    return (key, value) => {
      const e = this.#entry(state, this.#keyGroupOf(key), stateKey(key));
      touch(e);
      if (e.value === undefined) {
        e.value = form.first(value);
        return value;
      }
      return form.fold(e.value as S, value);
    };
  }

  /** A key's cached entry, read from the store on a miss; entries that leave the cache to make room go back to the store if changed. */
  #entry(state: LmdbState, keyGroup: number, key: Key): CachedEntry {
    let e = state.cache.get(key);
    if (e !== undefined) {
      this.#cacheHits++;
      return e;
    }
    this.#cacheMisses++;
    e = state.leaving.get(key);
    if (e !== undefined) state.leaving.delete(key);
    else {
      const keyBytes = this.#keyBytes(keyGroup, state, key);
      const bytes = this.#storage('read', () => this.#db.getBinary(keyBytes));
      e = { value: bytes === undefined ? undefined : state.bytes.decode(bytes), dirty: false, changed: false, used: false, keyGroup };
    }
    const left = state.cache.add(key, e);
    if (left !== undefined) {
      for (const [k, x] of left) if (x.dirty) state.leaving.set(k, x);
      if (state.leaving.size >= WRITE_BATCH) this.#writeLeaving(state);
    }
    return e;
  }

  #writeLeaving(state: LmdbState): void {
    this.#writeBack(state, state.leaving);
    state.leaving.clear();
  }

  #keyBytes(keyGroup: number, state: LmdbState, key: Key): Buffer {
    const bytes = encodeStateKey(keyGroup, state.id, key);
    if (bytes.length > MAX_KEY_BYTES) {
      throw new KeyedStateError(
        `key ${describeValue(key)} of state '${state.descriptor.name}' of operator uid '${this.uid}' takes ${bytes.length - 5} bytes; the lmdb state backend keeps keys of at most ${MAX_KEY_BYTES - 5} bytes (state.backend.type: heap has no such limit)`,
        state.descriptor.name,
      );
    }
    return bytes;
  }

  /** Writes the changed ones of `entries` to the store, in one transaction. */
  #writeBack(state: LmdbState, entries: Iterable<[Key, CachedEntry]>): void {
    const changed: Array<[Key, CachedEntry]> = [];
    for (const item of entries) if (item[1].dirty) changed.push(item);
    if (changed.length === 0) return;
    state.written += changed.length;
    const db = this.#db;
    const incremental = this.#incremental;
    const name = state.descriptor.name;
    let key: Key;
    try {
      this.#storage('write', () => db.transactionSync(() => {
        for (const [k, e] of changed) {
          key = k;
          if (e.changed) {
            incremental?.markDirty(name, e.keyGroup, k);
            e.changed = false;
          }
          const bytes = this.#keyBytes(e.keyGroup, state, k);
          if (e.value === undefined) db.removeSync(bytes);
          else db.putSync(bytes, state.bytes.encode(e.value) as Buffer);
          e.dirty = false;
        }
      }));
    } catch (err) {
      if (err instanceof SerializationError) throw err.withContext({ operatorUid: this.uid, state: state.descriptor.name, key: describeValue(key) });
      throw err;
    }
  }

  /** Every changed cached entry of `states` to the store (they stay cached). */
  #flush(states: Iterable<LmdbState>): void {
    this.#settleRestore();
    for (const state of states) {
      this.#writeLeaving(state);
      this.#writeBack(state, state.cache.dirty());
    }
  }

  restoredChain(chain: RestoredChain): void {
    this.#incremental?.restored(chain, this.keyGroupRange);
  }

  restoreTarget(info: StoredStateInfo, keyGroup: number): RestoredEntrySink {
    if (keyGroup < this.keyGroupRange.start || keyGroup > this.keyGroupRange.end) {
      throw new KeyedStateError(`key group ${keyGroup} of state '${info.name}' was restored into ${this.#describe()}, which owns key groups ${this.keyGroupRange.start}..${this.keyGroupRange.end}`, info.name);
    }
    let state = this.#states.get(info.name);
    if (state === undefined) {
      const descriptor = { kind: info.kind, name: info.name, serializer: passthroughSerializer(info), type: undefined, upgrade: undefined } as unknown as StateDescriptor;
      state = this.#add(descriptor, storedValueBytes(info));
      state.restoredAs = info;
    }
    const s = state;
    return (key, value) => {
      this.#restoring.push(s, keyGroup, key, value);
      if (this.#restoring.length >= 4 * RESTORE_BATCH) this.#settleRestore();
    };
  }

  #settleRestore(): void {
    const batch = this.#restoring;
    if (batch.length === 0) return;
    this.#restoring = [];
    const db = this.#db;
    this.#storage('write', () =>
      db.transactionSync(() => {
        for (let i = 0; i < batch.length; i += 4) {
          const state = batch[i] as LmdbState;
          db.putSync(this.#keyBytes(batch[i + 1] as number, state, batch[i + 2] as Key), state.bytes.encode(batch[i + 3]) as Buffer);
        }
      }),
    );
  }

  #add(descriptor: StateDescriptor, bytes: StateValueBytes): LmdbState {
    const id = this.#states.size + 1;
    // The id and the one after it (a range's end) must fit the key's two bytes.
    if (id >= 0xffff) throw new KeyedStateError(`operator uid '${this.uid}' has more keyed states than the lmdb state backend holds (65534)`, descriptor.name);
    const state: LmdbState = { id, descriptor, bytes, restoredAs: undefined, cache: new StateCache(this.#options.cacheEntries), leaving: new Map(), written: 0 };
    this.#states.set(descriptor.name, state);
    return state;
  }

  #register(descriptor: StateDescriptor): LmdbState {
    this.#settleRestore();
    const existing = this.#states.get(descriptor.name);
    if (existing === undefined) return this.#add(descriptor, descriptorValueBytes(descriptor.serializer as TypeSerializer<unknown>));
    const stored = existing.restoredAs;
    if (existing.descriptor.kind !== descriptor.kind) {
      throw new KeyedStateError(
        `state '${descriptor.name}' of operator uid '${this.uid}' is ${stored ? 'stored' : 'already registered'} as ${existing.descriptor.kind} state, not ${descriptor.kind}`,
        descriptor.name,
      );
    }
    if (stored !== undefined) {
      // A state whose serializer changed (so its info in the files): a delta cannot follow files written with the other.
      if (JSON.stringify(stored.snapshot) !== JSON.stringify(snapshotOf(descriptor.serializer as TypeSerializer<unknown>))) this.#incremental?.requireFull();
      this.#claim(existing, stored, descriptor);
      existing.descriptor = descriptor;
      existing.restoredAs = undefined;
    }
    return existing;
  }

  /** Converts restored values into the descriptor's form (restored-state-conversion.ts), rewriting them in the store, or fails naming both serializers. */
  #claim(state: LmdbState, stored: StoredStateInfo, descriptor: StateDescriptor): void {
    const convert = restoredStateConversion(this.uid, descriptor, stored.snapshot);
    const from = state.bytes;
    state.bytes = descriptorValueBytes(descriptor.serializer as TypeSerializer<unknown>);
    if (convert === undefined) return;
    const db = this.#db;
    for (let kg = this.keyGroupRange.start; kg <= this.keyGroupRange.end; kg++) {
      const entries: Array<[Buffer, unknown]> = [];
      for (const { key, value } of db.getRange({ start: statePrefix(kg, state.id), end: statePrefix(kg, state.id + 1) })) {
        entries.push([Buffer.from(key), convert(from.decode(value), decodeStateKey(key))]);
      }
      if (entries.length === 0) continue;
      this.#storage('write', () =>
        db.transactionSync(() => {
          for (const [key, value] of entries) db.putSync(key, state.bytes.encode(value) as Buffer);
        }),
      );
    }
  }

  hasState(name: string): boolean {
    return this.#states.has(name);
  }

  keysOf(stateName: string): Key[] {
    const state = this.#states.get(stateName);
    if (state === undefined) return [];
    this.#flush([state]);
    const keys: Key[] = [];
    for (let kg = this.keyGroupRange.start; kg <= this.keyGroupRange.end; kg++) {
      for (const key of this.#db.getKeys({ start: statePrefix(kg, state.id), end: statePrefix(kg, state.id + 1) })) keys.push(userKey(decodeStateKey(key as Buffer)));
    }
    return keys;
  }

  *entries<V>(descriptor: StateDescriptor): Generator<[Key, V]> {
    const state = this.#states.get(descriptor.name);
    if (state === undefined) return;
    this.#flush([state]);
    for (let kg = this.keyGroupRange.start; kg <= this.keyGroupRange.end; kg++) {
      for (const { key, value } of this.#db.getRange({ start: statePrefix(kg, state.id), end: statePrefix(kg, state.id + 1) })) {
        yield [decodeStateKey(key), state.bytes.decode(Buffer.from(value)) as V];
      }
    }
  }

  snapshot(request?: SnapshotRequest): CapturedKeyedState {
    const states = [...this.#states.values()];
    this.#settleRestore();
    for (const state of states) this.#writeLeaving(state);
    const now = this.#now();
    // Before the plan: what the compaction removes is among the keys this checkpoint's delta writes.
    if (this.#incremental !== undefined && request?.type === 'checkpoint' && request.incrementalBase !== undefined) this.#compactExpired(states, now);
    if (this.#incremental !== undefined) this.#noteChanged(states);
    const plan = this.#incremental?.plan(request);
    // A full snapshot reads the store, so it must hold every change; a delta takes the changed
    // keys' values from the cache where they are newer (captureDirty), and the store has the rest.
    if (plan === undefined || plan.changed === null) this.#flush(states);
    const base = { uid: this.uid, keyGroupRange: this.keyGroupRange, maxParallelism: this.maxParallelism };
    if (states.length === 0) return { ...base, tables: [] };
    const threaded = this.#snapshotThread(states, plan);
    if (threaded !== undefined) return { ...base, ...threaded };
    const transaction = this.#db.useReadTransaction();
    this.#openSnapshots++;
    const delta = plan !== undefined && plan.changed !== null;
    let open = delta ? states.length * 3 : states.length;
    const release = () => {
      if (--open > 0) return;
      transaction.done();
      this.#openSnapshots--;
      // The last one out closes the store: an earlier one would close it under the others' reads.
      if (this.#closed && this.#openSnapshots === 0) this.#closeStore();
    };
    const tables = withSnapshotCleanup(
      states.map((s) => ({ descriptor: s.descriptor, snapshot: lmdbTableSnapshot(this.#db, transaction, this.keyGroupRange, s.id, s.bytes.decodeStored, release) })),
      now,
      plan !== undefined,
    );
    if (plan === undefined) return { ...base, tables };
    const incremental = this.#incremental!;
    const deltaTables =
      plan.changed === null
        ? []
        : lmdbDeltaTables(
            this.#db,
            transaction,
            this.keyGroupRange,
            states.map((s) => {
              const keep = deltaCleanup(s.descriptor, now);
              const cached = this.#captureDirty(s, plan.changed!);
              return { descriptor: s.descriptor, keyBytes: (kg: number, key: Key) => this.#keyBytes(kg, s, key), decodeStored: s.bytes.decodeStored, cached, ...(keep ? { keep } : {}) };
            }),
            plan.changed,
            release,
          );
    return { ...base, tables, incremental: { plan, tables: deltaTables, written: (handle) => incremental.written(plan.checkpointId, handle) } };
  }

  /**
   * A snapshot written by the lmdb snapshot thread from its own read transaction, opened now, with
   * every change in the store: the full state (the caller flushed), or an incremental checkpoint's
   * delta of the keys changed since its base (flushed here, where the task thread's own delta copies
   * the changed cached values aside: the same encoding, the entries leave the cache clean, and
   * nothing but the keys goes to the thread; measured alike, with less code). Undefined when the thread is off or not
   * there, or a state filters its entries as they are written (TTL cleanup needs the job's
   * descriptor): then this thread writes it.
   */
  #snapshotThread(states: readonly LmdbState[], plan: IncrementalPlan | undefined): Pick<CapturedKeyedState, 'tables' | 'writeFile' | 'incremental'> | undefined {
    if (!this.#options.snapshotThread || states.some((s) => isTtlStored(s.descriptor))) return undefined;
    const delta = plan !== undefined && plan.changed !== null;
    if (delta) this.#flush(states);
    const snapshot = LmdbSnapshotThread.shared()?.open(this.#options.path);
    if (snapshot === undefined) return undefined;
    this.#openSnapshots++;
    let open = delta ? states.length * 3 : states.length;
    const release = () => {
      if (--open > 0) return;
      snapshot.release(() => {
        this.#openSnapshots--;
        if (this.#closed && this.#openSnapshots === 0) this.#closeStore();
      });
    };
    const table = (descriptor: StateDescriptor) => ({ descriptor, snapshot: entriesTable(writtenByThread, once(release)) });
    const specs = states.map((s) => {
      const serializer = snapshotOf(s.descriptor.serializer as TypeSerializer<unknown>);
      return { id: s.id, info: { name: s.descriptor.name, kind: s.descriptor.kind, serializer: serializer.kind, version: serializer.version, snapshot: serializer } };
    });
    const what = { uid: this.uid, keyGroupRange: this.keyGroupRange, maxParallelism: this.maxParallelism, states: specs };
    const full = { tables: states.map((s) => table(s.descriptor)), writeFile: (file: string, signal?: AbortSignal) => snapshot.write(file, what, signal) };
    if (plan === undefined) return full;
    const incremental = this.#incremental!;
    const written = (handle: KeyedStateHandle) => incremental.written(plan.checkpointId, handle);
    if (!delta) return { ...full, incremental: { plan, tables: [], written } };
    const changed = plan.changed!.toEntries();
    return {
      tables: full.tables,
      incremental: {
        plan,
        tables: states.flatMap((s) => [table(s.descriptor), table(removedKeysDescriptor(s.descriptor.name))]),
        written,
        writeFile: (file, signal) => snapshot.write(file, { ...what, changed }, signal),
      },
    };
  }

  /** Incremental checkpoints: the keys of cached entries changed since the last snapshot go into the changes the next delta writes. */
  #noteChanged(states: readonly LmdbState[]): void {
    const incremental = this.#incremental!;
    for (const state of states) {
      const name = state.descriptor.name;
      for (const [key, e] of state.cache.entries()) {
        if (!e.changed) continue;
        incremental.markDirty(name, e.keyGroup, key);
        e.changed = false;
      }
    }
  }

  /**
   * A delta's values of changed keys whose newest value is only in the cache (dirty, not yet
   * written to the store), as the store would hold them (null: removed), copied now: the task
   * goes on changing them while the delta is written.
   */
  #captureDirty(state: LmdbState, changed: DirtyKeys): Map<Key, Uint8Array | null> {
    const out = new Map<Key, Uint8Array | null>();
    const name = state.descriptor.name;
    if (state.cache.size === 0) return out;
    let key: Key;
    try {
      for (let kg = this.keyGroupRange.start; kg <= this.keyGroupRange.end; kg++) {
        for (const k of changed.keysOf(name, kg) ?? []) {
          const e = state.cache.peek(k);
          if (e === undefined || !e.dirty) continue;
          key = k;
          out.set(k, e.value === undefined ? null : state.bytes.encode(e.value));
        }
      }
    } catch (err) {
      if (err instanceof SerializationError) throw err.withContext({ operatorUid: this.uid, state: name, key: describeValue(key) });
      throw err;
    }
    return out;
  }

  /**
   * State TTL's cleanup in the background, at an incremental checkpoint (Flink's RocksDB
   * compaction filter): each TTL state that cleans up in the background has its expired entries
   * removed (or its lists and maps shortened) in the store, a bounded number read per checkpoint,
   * so the delta writes them as removed and the next full base leaves them out, also those of keys
   * no record touches again. A cached entry is changed in the cache too (it has the newest value).
   */
  #compactExpired(states: readonly LmdbState[], now: number): void {
    for (const state of states) {
      const expire = checkpointCleanup(state.descriptor, now);
      if (expire === undefined) continue;
      // The compaction reads the store: a TTL state's changes only in the cache go there first.
      this.#writeBack(state, state.cache.dirty());
      const name = state.descriptor.name;
      let cursor = this.#compactions.get(name);
      if (cursor === undefined) this.#compactions.set(name, (cursor = { keyGroup: this.keyGroupRange.start, after: undefined }));
      // More when more was written since the last: the store is gone through about as fast as it is written, as by a compaction.
      const budget = Math.max(CHECKPOINT_CLEANUP_ENTRIES, state.written);
      const c = cursor;
      const found = this.#storage('read', () => expiredEntries(this.#db, this.keyGroupRange, state.id, c, budget, (b) => state.bytes.decode(b), expire));
      this.#writeBack(
        state,
        found.map(({ keyGroup, key, value }): [Key, CachedEntry] => {
          const cached = state.cache.peek(key);
          if (cached === undefined) return [key, { value, dirty: true, changed: true, used: false, keyGroup }];
          cached.value = value;
          touch(cached);
          return [key, cached];
        }),
      );
      state.written = 0;
    }
  }

  sweep(stateName: string, count: number, fn: (value: unknown) => unknown): void {
    const state = this.#states.get(stateName);
    if (state === undefined) return;
    this.#settleRestore();
    let cursor = this.#sweeps.get(stateName);
    if (cursor === undefined) this.#sweeps.set(stateName, (cursor = { keyGroup: this.keyGroupRange.start, after: undefined }));
    const groups = this.keyGroupRange.end - this.keyGroupRange.start + 1;
    // Keys come from the store, values through the cache (which has the newest); entries only
    // cached so far are written at the start of each round, so a round reaches every entry.
    if (cursor.keyGroup === this.keyGroupRange.start && cursor.after === undefined) this.#flush([state]);
    let visited = 0;
    let emptyGroups = 0;
    while (visited < count && emptyGroups <= groups) {
      const kg = cursor.keyGroup;
      const keys = this.#storage('read', () => [...this.#db.getKeys({ start: cursor.after ?? statePrefix(kg, state.id), end: statePrefix(kg, state.id + 1), exclusiveStart: cursor.after !== undefined, limit: count - visited })] as Buffer[]);
      if (keys.length === 0) {
        cursor.after = undefined;
        emptyGroups++;
        if (kg < this.keyGroupRange.end) cursor.keyGroup = kg + 1;
        else {
          cursor.keyGroup = this.keyGroupRange.start;
          this.#flush([state]);
        }
        continue;
      }
      emptyGroups = 0;
      for (const bytes of keys) {
        cursor.after = Buffer.from(bytes);
        visited++;
        const e = this.#entry(state, kg, decodeStateKey(cursor.after));
        if (e.value === undefined) continue;
        const value = fn(e.value);
        if (value === e.value) continue;
        e.value = value;
        touch(e);
      }
    }
  }

  /** States restored but never asked for by the operator still belong in the next snapshot. */
  get unclaimedStates(): string[] {
    return [...this.#states.values()].filter((s) => s.restoredAs).map((s) => s.descriptor.name);
  }

  figures(): LocalStateFigures {
    return { localBytes: this.#closed ? 0 : storeBytes(this.#options.path), cacheHits: this.#cacheHits, cacheMisses: this.#cacheMisses };
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of this.#states.values()) {
      s.cache.clear();
      s.leaving.clear();
    }
    this.#restoring = [];
    this.#sweeps.clear();
    this.#compactions.clear();
    if (this.#openSnapshots === 0) this.#closeStore();
  }

  /** Once no snapshot reads the store any more: its files go (a local copy; the checkpoints have the state). */
  #closeStore(): void {
    const path = this.#options.path;
    void this.#db
      .close()
      .then(() => rm(path, { recursive: true, force: true }))
      .catch(() => {
        // What is left is removed with the TaskManager's working directory (lmdb-state-backend.ts).
      });
  }
}

/** The entries of a snapshot that the snapshot thread writes are read there, never here. */
function* writtenByThread(): Generator<number> {
  throw new Error('this snapshot is written by the lmdb snapshot thread (CapturedKeyedState.writeFile), not read here');
}

/** A handle changed a cached entry: it goes back to the store, and (incremental) into the next delta. */
function touch(e: CachedEntry): void {
  e.dirty = true;
  e.changed = true;
}

/** The bytes a store's files take on disk (allocated blocks: LMDB's file is sparse as it grows). */
function storeBytes(path: string): number {
  try {
    return readdirSync(path).reduce((n, f) => n + statSync(join(path, f)).blocks * 512, 0);
  } catch {
    return 0;
  }
}
