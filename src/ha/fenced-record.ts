import type { Fence } from './fence.ts';
import { FencedWriteError } from './fenced-write-error.ts';
import { HaStorageError } from './ha-storage-error.ts';
import { KeyValueConflictError } from './key-value-conflict-error.ts';
import type { VersionedKeyValueStore } from './versioned-key-value-store.ts';

/**
 * An HA record as stored: its data and the epoch of the leader that wrote it last. Writes are
 * compare-and-sets at the revision read, refused when the record's epoch is higher than the
 * writer's: once a leader has written a record (or claimed it on taking over), no write of an
 * older leader succeeds, whenever it arrives.
 */
interface StoredRecord<T> {
  readonly epoch: number;
  readonly data: T;
}

const CONFLICT_RETRIES = 16;

export async function readRecord<T>(store: VersionedKeyValueStore, key: string): Promise<{ data: T; epoch: number; revision: number } | undefined> {
  const entry = await store.get(key);
  if (!entry) return undefined;
  const record = decode<T>(store, key, entry.value);
  return { data: record.data, epoch: record.epoch, revision: entry.revision };
}

/**
 * Changes a record under a fence: `change` gets the current data (undefined when there is none)
 * and returns the new data, or `undefined` to leave the record as it is (still stamped with this
 * writer's epoch: a claim). Retried when another writer of the same epoch came in between.
 */
export async function updateRecord<T>(store: VersionedKeyValueStore, key: string, fence: Fence, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
  for (let attempt = 0; ; attempt++) {
    fence.check(key);
    const current = await readRecord<T>(store, key);
    if (current && current.epoch > fence.epoch) throw new FencedWriteError('SUPERSEDED', key, fence.epoch, { recordEpoch: current.epoch });
    const next = change(current?.data) ?? current?.data;
    if (next === undefined) return undefined;
    const bytes = new TextEncoder().encode(JSON.stringify({ epoch: fence.epoch, data: next } satisfies StoredRecord<T>));
    try {
      if (current) await store.update(key, bytes, current.revision);
      else await store.create(key, bytes);
      return next;
    } catch (e) {
      if (!(e instanceof KeyValueConflictError) || attempt >= CONFLICT_RETRIES) throw e;
    }
  }
}

/** Deletes a record under a fence (nothing when there is none). */
export async function deleteRecord(store: VersionedKeyValueStore, key: string, fence: Fence): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    fence.check(key);
    const current = await readRecord<unknown>(store, key);
    if (!current) return;
    if (current.epoch > fence.epoch) throw new FencedWriteError('SUPERSEDED', key, fence.epoch, { recordEpoch: current.epoch });
    try {
      await store.delete(key, current.revision);
      return;
    } catch (e) {
      if (!(e instanceof KeyValueConflictError) || attempt >= CONFLICT_RETRIES) throw e;
    }
  }
}

function decode<T>(store: VersionedKeyValueStore, key: string, bytes: Uint8Array): StoredRecord<T> {
  try {
    const r = JSON.parse(new TextDecoder().decode(bytes)) as StoredRecord<T>;
    if (typeof r.epoch === 'number' && 'data' in r) return r;
  } catch {
    // reported below
  }
  throw new HaStorageError('CORRUPTED', 'read', key, store.description, 'not a weir HA record');
}
