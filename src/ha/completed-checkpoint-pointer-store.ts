import type { Fence } from './fence.ts';
import { deleteRecord, readRecord, updateRecord } from './fenced-record.ts';
import type { VersionedKeyValueStore } from './versioned-key-value-store.ts';

/** Where a completed checkpoint lies: its `_metadata` is in the checkpoint storage, only the pointer is here. */
export interface CheckpointPointer {
  readonly checkpointId: number;
  /** The checkpoint's location in the checkpoint storage (a directory or `nats-obj://` URL). */
  readonly location: string;
  readonly type: 'checkpoint' | 'savepoint';
  readonly triggeredAt: number;
  readonly completedAt: number;
  readonly stateBytes: number;
}

export interface AddedCheckpoint {
  /** False when the pointer was not newer than the latest retained one: the caller discards it. */
  readonly added: boolean;
  /** Pointers that fell out of the retained ones: the caller discards their files, after this write. */
  readonly subsumed: readonly CheckpointPointer[];
}

/**
 * Flink's CompletedCheckpointStore as pointers (as its ZooKeeper and Kubernetes stores keep them):
 * a job's retained completed checkpoints, oldest first, in one record, so adding one and dropping
 * the subsumed ones is one fenced compare-and-set. A checkpoint is complete for a leader only once
 * this write succeeded; only then may it tell sinks to commit.
 */
export interface CompletedCheckpointPointerStore {
  readonly retained: number;
  addCheckpoint(fence: Fence, pointer: CheckpointPointer): Promise<AddedCheckpoint>;
  getLatest(): Promise<CheckpointPointer | undefined>;
  getAll(): Promise<readonly CheckpointPointer[]>;
  /** Drops a pointer whose checkpoint turned out unreadable, so a restore falls back to the one before. */
  remove(fence: Fence, checkpointId: number): Promise<void>;
  /** A new leader's first step: claims the record for its epoch and returns the retained pointers. */
  recover(fence: Fence): Promise<readonly CheckpointPointer[]>;
  /** The job is globally terminal: the pointers go (the caller discards the checkpoints first). */
  removeAll(fence: Fence): Promise<void>;
}

interface PointersRecord {
  readonly checkpoints: readonly CheckpointPointer[];
}

export class KeyValueCompletedCheckpointPointerStore implements CompletedCheckpointPointerStore {
  readonly retained: number;
  readonly #store: VersionedKeyValueStore;
  readonly #key: string;

  constructor(store: VersionedKeyValueStore, jobId: string, retained: number) {
    if (!Number.isInteger(retained) || retained < 1) throw new RangeError(`retained must be a whole number of at least 1, got ${retained}`);
    this.#store = store;
    this.#key = `jobs.${jobId}.checkpoints`;
    this.retained = retained;
  }

  async addCheckpoint(fence: Fence, pointer: CheckpointPointer): Promise<AddedCheckpoint> {
    let result: AddedCheckpoint = { added: false, subsumed: [] };
    await updateRecord<PointersRecord>(this.#store, this.#key, fence, (current) => {
      const all = current?.checkpoints ?? [];
      const latest = all.at(-1);
      if (latest && pointer.checkpointId <= latest.checkpointId) {
        result = { added: false, subsumed: [] };
        return undefined;
      }
      const next = [...all, pointer];
      const subsumed = next.splice(0, Math.max(0, next.length - this.retained));
      result = { added: true, subsumed };
      return { checkpoints: next };
    });
    return result;
  }

  async getLatest(): Promise<CheckpointPointer | undefined> {
    return (await this.getAll()).at(-1);
  }

  async getAll(): Promise<readonly CheckpointPointer[]> {
    return (await readRecord<PointersRecord>(this.#store, this.#key))?.data.checkpoints ?? [];
  }

  async remove(fence: Fence, checkpointId: number): Promise<void> {
    await updateRecord<PointersRecord>(this.#store, this.#key, fence, (current) => (current ? { checkpoints: current.checkpoints.filter((c) => c.checkpointId !== checkpointId) } : undefined));
  }

  async recover(fence: Fence): Promise<readonly CheckpointPointer[]> {
    return (await updateRecord<PointersRecord>(this.#store, this.#key, fence, (current) => current ?? { checkpoints: [] }))?.checkpoints ?? [];
  }

  async removeAll(fence: Fence): Promise<void> {
    await deleteRecord(this.#store, this.#key, fence);
  }
}
