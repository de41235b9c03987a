import { removedKeysDescriptor } from '../checkpoint/incremental/removed-keys.ts';
import type { StateDescriptor } from '../api/state-descriptors.ts';
import type { CapturedTable } from './captured-state.ts';
import type { DirtyKeys } from './incremental/dirty-keys.ts';
import { arrayTable } from './incremental/entries-table.ts';
import type { KeyGroupRange } from './key-group.ts';
import type { StateTable } from './state-table.ts';
import { deltaCleanup } from './ttl/ttl-snapshot-cleanup.ts';

/**
 * The tables of an incremental checkpoint's delta on the heap backend, taken whole in the
 * snapshot's synchronous part: for each state, its changed keys' values copied as they are now
 * (the task goes on changing them while the delta is written), and the changed keys that are gone
 * (under removedKeysDescriptor). Copying only the changed entries costs what a delta writes, not
 * what the state holds, and leaves the tables without a copy-on-write snapshot to serve.
 */
export function heapDeltaTables(
  states: Iterable<{ readonly descriptor: StateDescriptor; readonly table: StateTable<unknown> }>,
  range: KeyGroupRange,
  changed: DirtyKeys,
  now: number,
): CapturedTable[] {
  const tables: CapturedTable[] = [];
  const groups = range.end - range.start + 1;
  for (const { descriptor, table } of states) {
    const keep = deltaCleanup(descriptor, now);
    const values: Array<unknown[] | undefined> = new Array(groups);
    const removed: Array<unknown[] | undefined> = new Array(groups);
    for (let index = 0; index < groups; index++) {
      const keys = changed.keysOf(descriptor.name, range.start + index);
      if (keys === undefined) continue;
      for (const key of keys) {
        const value = table.capture(index, key);
        const kept = value === undefined || keep === undefined ? value : keep(value);
        if (kept === undefined) (removed[index] ??= []).push(key, true);
        else (values[index] ??= []).push(key, kept);
      }
    }
    tables.push({ descriptor, snapshot: arrayTable(values) }, { descriptor: removedKeysDescriptor(descriptor.name), snapshot: arrayTable(removed) });
  }
  return tables;
}
