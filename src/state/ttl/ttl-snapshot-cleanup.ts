import type { CapturedKeyedState } from '../captured-state.ts';
import type { StateDescriptor } from '../../api/state-descriptors.ts';
import type { Key } from '../key-group.ts';
import type { TableSnapshot } from '../state-table.ts';
import { isTtlStored, type TtlStoredDescriptor } from './ttl-stored-descriptor.ts';

/**
 * Flink's cleanupFullSnapshot: the tables of TTL states that ask for it write what is left of
 * each value at `now` (the time of the snapshot's synchronous part), so expired entries are not
 * in the checkpoint or savepoint. The live state is not touched. A full base of an incremental
 * checkpoint (`incremental`) also leaves out those of states cleaned up in the background: its
 * files are shared by the checkpoints after it, so what it holds stays as long as they do.
 */
export function withSnapshotCleanup(tables: CapturedKeyedState['tables'], now: number, incremental = false): CapturedKeyedState['tables'] {
  return tables.map((t) => {
    const d = t.descriptor;
    if (!isTtlStored(d) || !(incremental ? cleanedInIncrementalCheckpoints(d) : d.ttl.config.cleanup.fullSnapshot)) return t;
    return { descriptor: d, snapshot: filtered(t.snapshot, d.ttl.expire(now)) };
  });
}

function filtered(inner: TableSnapshot<unknown>, keep: (value: unknown) => unknown): TableSnapshot<unknown> {
  function* keyGroupEntries(keyGroupIndex: number, slice: number, keys: Key[], values: unknown[]): Generator<number> {
    for (const n of inner.keyGroupEntries(keyGroupIndex, slice, keys, values)) {
      let m = 0;
      for (let i = 0; i < n; i++) {
        const v = keep(values[i]);
        if (v === undefined) continue;
        keys[m] = keys[i]!;
        values[m] = v;
        m++;
      }
      if (m > 0) yield m;
    }
  }
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
    const keys: Key[] = new Array(slice);
    const values: unknown[] = new Array(slice);
    for (const n of keyGroupEntries(keyGroupIndex, slice, keys, values)) {
      const pairs: Array<[Key, unknown]> = [];
      for (let i = 0; i < n; i++) pairs.push([keys[i], values[i]]);
      yield pairs;
    }
  }
  return { keyGroupEntries, keyGroupFrames, keyGroupSlices, release: () => inner.release() };
}

/**
 * The same cleanup for an incremental checkpoint's delta: what is left at `now` of a changed
 * value of a TTL state that asks for it, or undefined when it has expired whole, which the delta
 * writes as a removed key (skipping it would leave the value an earlier file of the chain holds).
 * Undefined for other states: their changed values are written as they are.
 */
export function deltaCleanup(descriptor: StateDescriptor, now: number): ((value: unknown) => unknown) | undefined {
  if (!isTtlStored(descriptor) || !cleanedInIncrementalCheckpoints(descriptor)) return undefined;
  return descriptor.ttl.expire(now);
}

/**
 * Whether incremental checkpoints leave a TTL state's expired entries out: with cleanupFullSnapshot,
 * and with cleanup in the background (the default; Flink's RocksDB backend drops them in its
 * compaction filter, so its incremental checkpoints' new files hold none). Only a state that
 * disables background cleanup and does not ask for full snapshot cleanup keeps them until read.
 */
export function cleanedInIncrementalCheckpoints(descriptor: TtlStoredDescriptor): boolean {
  const cleanup = descriptor.ttl.config.cleanup;
  return cleanup.fullSnapshot || cleanup.incremental !== undefined;
}

/**
 * Stored entries of each TTL state cleaned up in the background that an incremental checkpoint
 * reads for expired ones at least (Flink's RocksDB compaction filter: lmdb's ttl-compaction.ts,
 * the heap's sweep), going round them from one checkpoint to the next.
 */
export const CHECKPOINT_CLEANUP_ENTRIES = 1000;

/** What an incremental checkpoint's cleanup leaves of a value of `descriptor` (CHECKPOINT_CLEANUP_ENTRIES of them), or undefined for a state it does not clean up. */
export function checkpointCleanup(descriptor: StateDescriptor, now: number): ((value: unknown) => unknown) | undefined {
  if (!isTtlStored(descriptor) || descriptor.ttl.config.cleanup.incremental === undefined) return undefined;
  return descriptor.ttl.expire(now);
}
