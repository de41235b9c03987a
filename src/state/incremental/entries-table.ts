import type { Key } from '../key-group.ts';
import type { TableSnapshot } from '../state-table.ts';

/** A TableSnapshot from its keyGroupEntries alone (the other two views are built on it): how a delta's tables are made. */
export function entriesTable(keyGroupEntries: TableSnapshot<unknown>['keyGroupEntries'], release: () => void): TableSnapshot<unknown> {
  function* keyGroupFrames(keyGroupIndex: number, slice: number, prefix: readonly unknown[]): Generator<unknown[]> {
    const keys: Key[] = new Array(slice);
    const values: unknown[] = new Array(slice);
    for (const n of keyGroupEntries(keyGroupIndex, slice, keys, values)) {
      const frame = prefix.slice();
      for (let i = 0; i < n; i++) frame.push(keys[i], values[i]);
      yield frame;
    }
  }
  function* keyGroupSlices(keyGroupIndex: number, slice: number): Generator<Array<[Key, unknown]>> {
    for (const frame of keyGroupFrames(keyGroupIndex, slice, [])) {
      const pairs: Array<[Key, unknown]> = [];
      for (let i = 0; i < frame.length; i += 2) pairs.push([frame[i] as Key, frame[i + 1]]);
      yield pairs;
    }
  }
  return { keyGroupEntries, keyGroupFrames, keyGroupSlices, release };
}

/** Entries held in arrays per key group index, keys and values alternating, as a TableSnapshot. */
export function arrayTable(byKeyGroup: ReadonlyArray<readonly unknown[] | undefined>): TableSnapshot<unknown> {
  return entriesTable(function* (keyGroupIndex, slice, keys, values) {
    const flat = byKeyGroup[keyGroupIndex];
    if (flat === undefined) return;
    let n = 0;
    for (let i = 0; i < flat.length; i += 2) {
      keys[n] = flat[i] as Key;
      values[n] = flat[i + 1];
      if (++n === slice) {
        yield n;
        n = 0;
      }
    }
    if (n > 0) yield n;
  }, () => {});
}
