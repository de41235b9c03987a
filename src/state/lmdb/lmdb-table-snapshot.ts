import type { Database, Transaction } from 'lmdb';
import type { Key, KeyGroupRange } from '../key-group.ts';
import type { TableSnapshot } from '../state-table.ts';
import { entriesTable } from '../incremental/entries-table.ts';
import { decodeStateKey, statePrefix } from './state-key-bytes.ts';

/**
 * One state of an lmdb snapshot: a read transaction of the store (LMDB's MVCC keeps what it saw
 * while the task goes on writing) read one key group at a time, as the heap's table snapshots are
 * read, so the state file is the same format whichever backend wrote it. Entries are read a slice
 * at a time, each a fresh range scan from after the last key: no cursor is held across the
 * writer's awaits.
 */
export function lmdbTableSnapshot(
  db: Database<Buffer, Buffer>,
  transaction: Transaction,
  range: KeyGroupRange,
  stateId: number,
  decodeStored: (bytes: Uint8Array) => unknown,
  release: () => void,
): TableSnapshot<unknown> {
  let released = false;
  function* keyGroupEntries(keyGroupIndex: number, slice: number, keys: Key[], values: unknown[]): Generator<number> {
    const kg = range.start + keyGroupIndex;
    const end = statePrefix(kg, stateId + 1);
    let start: Buffer = statePrefix(kg, stateId);
    let exclusiveStart = false;
    for (;;) {
      if (released) return;
      let n = 0;
      for (const { key, value } of db.getRange({ start, end, exclusiveStart, limit: slice, transaction })) {
        keys[n] = decodeStateKey(key);
        // The range's buffers may be reused by its next step: the value is decoded from a copy.
        values[n] = decodeStored(Buffer.from(value));
        start = Buffer.from(key);
        n++;
      }
      exclusiveStart = true;
      if (n > 0) yield n;
      if (n < slice) return;
    }
  }
  return entriesTable(keyGroupEntries, () => {
    if (released) return;
    released = true;
    release();
  });
}

