import type { RestoredChain } from './incremental/restored-chain.ts';
import type { ReduceFunction } from '../api/functions.ts';
import type { AggregatingState, ListState, MapState, ReducingState, ValueState } from '../api/state.ts';
import type {
  AggregatingStateDescriptor,
  ListStateDescriptor,
  MapStateDescriptor,
  ReducingStateDescriptor,
  StateDescriptor,
  ValueStateDescriptor,
} from '../api/state-descriptors.ts';
import type { CapturedKeyedState } from './captured-state.ts';
import type { InPlaceAggregate } from './in-place-aggregate.ts';
import type { Key, KeyGroupRange } from './key-group.ts';
import type { StoredStateInfo } from './stored-state-info.ts';
import type { SnapshotRequest } from './incremental/incremental-snapshots.ts';

export type { StoredStateInfo } from './stored-state-info.ts';

/** Takes the restored entries of one state in one key group, one at a time. */
export type RestoredEntrySink = (key: Key, value: unknown) => void;

/**
 * Keyed state of one operator in one subtask (Flink's KeyedStateBackend): states are created from
 * descriptors and scoped to the current key; snapshots and restores go by key group, which is
 * what lets a snapshot be restored at another parallelism. Every state type (timers and window
 * state are value states) goes through it, so each backend (heap-keyed-state-backend.ts,
 * lmdb/lmdb-keyed-state-backend.ts) holds all of them, and all write one snapshot format.
 */
export interface KeyedStateBackend {
  readonly uid: string;
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  /** Every state access that follows is scoped to this key (and its key group). */
  setCurrentKey(key: Key): void;
  readonly currentKey: Key;
  getValueState<T>(descriptor: ValueStateDescriptor<T>): ValueState<T>;
  getListState<T>(descriptor: ListStateDescriptor<T>): ListState<T>;
  getMapState<K, V>(descriptor: MapStateDescriptor<K, V>): MapState<K, V>;
  getReducingState<T>(descriptor: ReducingStateDescriptor<T>): ReducingState<T>;
  getAggregatingState<IN, ACC, OUT>(descriptor: AggregatingStateDescriptor<IN, ACC, OUT>): AggregatingState<IN, OUT>;
  /**
   * A function that folds a value into `key`'s value of `descriptor` with `fn` and returns the
   * result: the rolling aggregates' hot path, one lookup per record for keys seen recently. It
   * does not change the current key.
   */
  valueFolder<T>(descriptor: ValueStateDescriptor<T>, fn: ReduceFunction<T>): (key: Key, value: T) => T;
  /**
   * valueFolder for an aggregate kept in a form of its own: `form` makes each key's state from
   * its first record, changes it in place per record and says what to emit; snapshots still
   * write (and restores read) the aggregate as a reduce would hold it.
   */
  inPlaceFolder<S, T>(descriptor: ValueStateDescriptor<T>, form: InPlaceAggregate<S, T>): (key: Key, value: T) => T;
  /**
   * Where the restored entries of one stored state and key group go: a state file is decoded
   * straight into the tables, in the form the stored serializer reads (a restore converts them
   * when the operator asks for the state with its descriptor).
   */
  restoreTarget(info: StoredStateInfo, keyGroup: number): RestoredEntrySink;
  /**
   * Incremental checkpoints: the backend was restored from exactly this one handle of checkpoint
   * `checkpointId` at `location`, so its next checkpoint may build on that chain (restored-chain.ts).
   */
  restoredChain?(chain: RestoredChain): void;
  /**
   * The keys (as the user gave them) that hold an entry of the state named so in this subtask:
   * Flink's applyToKeyedState visits each of them with the key current. Empty for an unknown state.
   */
  keysOf(stateName: string): Key[];
  /** Whether a state of this name is held (registered, or restored and not claimed yet). */
  hasState(name: string): boolean;
  /**
   * Every entry of one state, whatever its key (Flink's getKeys): what a timer queue is rebuilt
   * from after a restore. The state must have been registered with `descriptor` first, so that
   * restored values are in its form. Keys are as the state holds them (a composite key is a
   * string there, state-key.ts).
   */
  entries<V>(descriptor: StateDescriptor): Iterable<[Key, V]>;
  /**
   * Visits the next `count` entries of the state named so, going round all of them over
   * successive calls (state TTL's incremental cleanup): `fn` gives an entry's value back to keep
   * it, another value to replace it, or undefined to remove it. It does not change the current key.
   */
  sweep(stateName: string, count: number, fn: (value: unknown) => unknown): void;
  /**
   * The synchronous part of a snapshot: views of every state that the asynchronous part writes.
   * `request` says which checkpoint it is for; a backend with incremental checkpoints adds what
   * changed since the checkpoint it builds on (CapturedKeyedState.incremental).
   */
  snapshot(request?: SnapshotRequest): CapturedKeyedState;
  /**
   * The attempt is over: let go of the state (a handle of one attempt, closed). A snapshot whose
   * asynchronous part is still being written stays readable until it is released.
   */
  close(): void;
  /** A backend that keeps state on local disk: its store's size and cache figures (the heap backend has none). */
  figures?(): LocalStateFigures;
}

/** The figures of a keyed state backend on local disk, for the operator's metrics. */
export interface LocalStateFigures {
  /** Bytes the local store takes on disk. */
  readonly localBytes: number;
  /** State accesses the in-memory cache answered, and those that went to the store, since the backend opened. */
  readonly cacheHits: number;
  readonly cacheMisses: number;
}
