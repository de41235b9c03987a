import type { Database } from 'lmdb';
import type { Key, KeyGroupRange } from '../key-group.ts';
import { decodeStateKey, statePrefix } from './state-key-bytes.ts';

/** Where a state's compaction goes on from: a key group and the last key visited in it. */
export interface CompactionCursor {
  keyGroup: number;
  after: Buffer | undefined;
}

/** An entry whose stored value lost expired parts: `value` is what is left (undefined: nothing, the key goes). */
export interface CompactedEntry {
  readonly keyGroup: number;
  readonly key: Key;
  readonly value: unknown;
}

/**
 * The lmdb backend's analogue of Flink's RocksDB compaction filter for state TTL: reads up to
 * `budget` stored entries of one state from `cursor` on (going round its key groups), and returns
 * those that `expire` changes. The caller writes them (so they are gone from the local store and
 * are in the next incremental checkpoint's delta as removed or shortened): entries no record
 * touches again do not stay in the store, nor in the checkpoints' shared files past the next
 * full base. Reads only the store, after the caller has flushed its cache into it.
 */
export function expiredEntries(
  db: Database<Buffer, Buffer>,
  range: KeyGroupRange,
  stateId: number,
  cursor: CompactionCursor,
  budget: number,
  decode: (bytes: Buffer) => unknown,
  expire: (value: unknown) => unknown,
): CompactedEntry[] {
  const out: CompactedEntry[] = [];
  const groups = range.end - range.start + 1;
  let visited = 0;
  // At most one round per call: an entry is never visited twice by one.
  for (let stepped = 0; visited < budget && stepped < groups; stepped++) {
    const kg = cursor.keyGroup;
    let n = 0;
    for (const { key, value } of db.getRange({ start: cursor.after ?? statePrefix(kg, stateId), end: statePrefix(kg, stateId + 1), exclusiveStart: cursor.after !== undefined, limit: budget - visited })) {
      cursor.after = Buffer.from(key);
      n++;
      const stored = decode(Buffer.from(value));
      const kept = expire(stored);
      if (kept !== stored) out.push({ keyGroup: kg, key: decodeStateKey(cursor.after), value: kept });
    }
    visited += n;
    if (visited >= budget) break;
    // This key group is done: on to the next (round to the first after the last).
    cursor.after = undefined;
    cursor.keyGroup = kg < range.end ? kg + 1 : range.start;
  }
  return out;
}
