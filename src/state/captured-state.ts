import type { StateDescriptor } from '../api/state-descriptors.ts';
import type { KeyGroupRange } from './key-group.ts';
import type { OperatorStateEntry } from './operator-state-backend.ts';
import type { TableSnapshot } from './state-table.ts';
import type { KeyedStateHandle } from '../checkpoint/state-handles.ts';
import type { IncrementalPlan } from './incremental/incremental-snapshots.ts';

/** One state's view in a captured snapshot. */
export interface CapturedTable {
  readonly descriptor: StateDescriptor;
  readonly snapshot: TableSnapshot<unknown>;
}

/** An incremental checkpoint's part of a captured snapshot (incremental-snapshots.ts). */
export interface CapturedIncrementalState {
  readonly plan: IncrementalPlan;
  /**
   * With a base: the entries changed since it and, under removedKeysDescriptor, the keys removed
   * since it. Released with the rest of the snapshot.
   */
  readonly tables: readonly CapturedTable[];
  /** The asynchronous part wrote the checkpoint as `handle` (a later one may build on it once it completes). */
  written(handle: KeyedStateHandle): void;
  /** A delta that writes its own file, the one `tables` would make (the lmdb snapshot thread). */
  readonly writeFile?: (file: string, signal?: AbortSignal) => Promise<KeyedStateHandle>;
}

/**
 * The result of a snapshot's synchronous part for one operator: cheap views (copy-on-write
 * table snapshots, small copied lists) that the asynchronous part serializes and writes.
 */
export interface CapturedKeyedState {
  /** The operator's uid, for the errors of values that its serializers cannot write. */
  readonly uid: string;
  readonly keyGroupRange: KeyGroupRange;
  readonly maxParallelism: number;
  readonly tables: readonly CapturedTable[];
  /** Incremental checkpoints: what to write instead of `tables` into the shared files (absent: a full canonical snapshot). */
  readonly incremental?: CapturedIncrementalState;
  /**
   * A snapshot that writes its own state file, the file `tables` would make (the lmdb backend's
   * snapshot thread); its tables are then only released, never read.
   */
  readonly writeFile?: (file: string, signal?: AbortSignal) => Promise<KeyedStateHandle>;
}

export interface CapturedOperatorState {
  readonly uid: string;
  readonly operatorId: string;
  readonly keyed: CapturedKeyedState | null;
  readonly operator: ReadonlyMap<string, OperatorStateEntry>;
}
