import type { KeyedStateHandle } from '../../checkpoint/state-handles.ts';
import type { DirtyKeyEntries } from '../incremental/dirty-keys.ts';
import type { KeyGroupRange } from '../key-group.ts';
import type { StoredStateInfo } from '../stored-state-info.ts';

/** One state of a snapshot the snapshot thread writes: its id in the store's keys, and how its values are stored. */
export interface SnapshotThreadState {
  readonly id: number;
  readonly info: StoredStateInfo;
}

/**
 * What a task thread asks of its lmdb snapshot thread (lmdb-snapshot-thread.ts), per snapshot
 * (a ticket). `open` is answered through `flag`, which the asking thread waits on: the ticket's
 * number once a read transaction of the store is open there, its negation when none could be.
 */
export type ToSnapshotThread =
  | { readonly type: 'open'; readonly ticket: number; readonly path: string; readonly flag: Int32Array }
  | {
      readonly type: 'write';
      readonly ticket: number;
      readonly file: string;
      readonly uid: string;
      readonly keyGroupRange: KeyGroupRange;
      readonly maxParallelism: number;
      readonly states: readonly SnapshotThreadState[];
      /** An incremental checkpoint's delta: the keys changed since its base (absent: the full state). */
      readonly changed?: DirtyKeyEntries;
    }
  | { readonly type: 'abort'; readonly ticket: number; readonly reason: string }
  | { readonly type: 'release'; readonly ticket: number };

export type FromSnapshotThread =
  | { readonly type: 'ready' }
  | { readonly type: 'written'; readonly ticket: number; readonly handle: KeyedStateHandle }
  | { readonly type: 'failed'; readonly ticket: number; readonly error: { readonly name: string; readonly message: string; readonly code?: string } }
  | { readonly type: 'released'; readonly ticket: number };
