import type { Database, Transaction } from 'lmdb';
import { removedKeysDescriptor } from '../../checkpoint/incremental/removed-keys.ts';
import type { StateDescriptor } from '../../api/state-descriptors.ts';
import type { CapturedTable } from '../captured-state.ts';
import type { DirtyKeys } from '../incremental/dirty-keys.ts';
import type { Key, KeyGroupRange } from '../key-group.ts';
import { entriesTable } from '../incremental/entries-table.ts';

/** What a delta needs of one state of the store. */
export interface DeltaState {
  readonly descriptor: StateDescriptor;
  readonly keyBytes: (keyGroup: number, key: Key) => Buffer;
  readonly decodeStored: (bytes: Uint8Array) => unknown;
  /** Changed keys whose newest value the snapshot copied from the cache (null: removed); the others are read from the store. */
  readonly cached: ReadonlyMap<Key, Uint8Array | null>;
  /** State TTL's snapshot cleanup (deltaCleanup): a changed value expired whole is written as removed. */
  readonly keep?: (value: unknown) => unknown;
}

/**
 * The tables of an incremental checkpoint's delta on the lmdb backend: for each state, its
 * changed keys as they are in the snapshot's read transaction, and the keys among them that are
 * gone (under removedKeysDescriptor). Both come from one lookup per changed key (the value the
 * snapshot copied from the cache, or else the store's in the read transaction): the state file
 * writer reads a key group's changed entries just before its removed keys, and the lookups of the
 * first remember the second's.
 */
export function lmdbDeltaTables(
  db: Database<Buffer, Buffer>,
  transaction: Transaction,
  range: KeyGroupRange,
  states: readonly DeltaState[],
  changed: DirtyKeys,
  release: () => void,
): CapturedTable[] {
  const tables: CapturedTable[] = [];
  for (const state of states) {
    const removedByGroup = new Map<number, Key[]>();
    const lookUp = (kg: number, onValue: (key: Key, value: unknown) => void): Key[] => {
      const removed: Key[] = [];
      for (const key of changed.keysOf(state.descriptor.name, kg) ?? []) {
        const copied = state.cached.get(key);
        let value: unknown;
        if (copied === null) value = undefined;
        else if (copied !== undefined) value = state.decodeStored(copied);
        else {
          const bytes = db.get(state.keyBytes(kg, key), { transaction });
          value = bytes === undefined ? undefined : state.decodeStored(Buffer.from(bytes));
        }
        const kept = value === undefined || state.keep === undefined ? value : state.keep(value);
        if (kept === undefined) removed.push(key);
        else onValue(key, kept);
      }
      return removed;
    };
    // A released table reads no more: the read transaction may have ended with it (a checkpoint
    // dropped while its writer was between two key groups), as in lmdbTableSnapshot.
    const changedRelease = releaseOnce(release);
    const removedRelease = releaseOnce(release);
    const changedTable = entriesTable(function* (keyGroupIndex, slice, keys, values) {
      if (changedRelease.released) return;
      const kg = range.start + keyGroupIndex;
      let n = 0;
      const pending: Array<[Key, unknown]> = [];
      removedByGroup.set(kg, lookUp(kg, (k, v) => void pending.push([k, v])));
      for (const [k, v] of pending) {
        keys[n] = k;
        values[n] = v;
        if (++n === slice) {
          yield n;
          n = 0;
        }
      }
      if (n > 0) yield n;
    }, changedRelease.release);
    const removedTable = entriesTable(function* (keyGroupIndex, slice, keys, values) {
      if (removedRelease.released) return;
      const kg = range.start + keyGroupIndex;
      const removed = removedByGroup.get(kg) ?? lookUp(kg, () => {});
      removedByGroup.delete(kg);
      let n = 0;
      for (const k of removed) {
        keys[n] = k;
        values[n] = true;
        if (++n === slice) {
          yield n;
          n = 0;
        }
      }
      if (n > 0) yield n;
    }, removedRelease.release);
    tables.push({ descriptor: state.descriptor, snapshot: changedTable }, { descriptor: removedKeysDescriptor(state.descriptor.name), snapshot: removedTable });
  }
  return tables;
}

/** A table's share of the snapshot's release, run once however often the table is released; `released` says whether it was. */
function releaseOnce(fn: () => void): { released: boolean; readonly release: () => void } {
  const r = {
    released: false,
    release: () => {
      if (r.released) return;
      r.released = true;
      fn();
    },
  };
  return r;
}

/** A release that several tables share, run once whichever calls it first or again. */
export function once(fn: () => void): () => void {
  return releaseOnce(fn).release;
}
