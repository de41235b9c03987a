import type { Fence } from './fence.ts';
import { readRecord, updateRecord } from './fenced-record.ts';
import type { VersionedKeyValueStore } from './versioned-key-value-store.ts';

/**
 * Flink's CheckpointIDCounter: the next checkpoint id of a job, kept where a new leader finds it,
 * so ids never repeat across leaders (a repeated id would overwrite a checkpoint's files).
 */
export interface CheckpointIdCounter {
  /** The next id, and the counter moves past it. */
  getAndIncrement(fence: Fence): Promise<number>;
  /** The next id that getAndIncrement will give. */
  get(): Promise<number>;
  /** Moves the counter to at least `next` (after restoring a savepoint with a higher id); never back. */
  setCount(fence: Fence, next: number): Promise<void>;
  /** A new leader's first step: the record is stamped with its epoch, so an older leader can no longer take ids. */
  recover(fence: Fence): Promise<number>;
}

interface CounterRecord {
  readonly next: number;
}

export class KeyValueCheckpointIdCounter implements CheckpointIdCounter {
  readonly #store: VersionedKeyValueStore;
  readonly #key: string;

  constructor(store: VersionedKeyValueStore, jobId: string) {
    this.#store = store;
    this.#key = `jobs.${jobId}.checkpoint-id`;
  }

  async getAndIncrement(fence: Fence): Promise<number> {
    let taken = 0;
    await updateRecord<CounterRecord>(this.#store, this.#key, fence, (current) => {
      taken = current?.next ?? 1;
      return { next: taken + 1 };
    });
    return taken;
  }

  async get(): Promise<number> {
    return (await readRecord<CounterRecord>(this.#store, this.#key))?.data.next ?? 1;
  }

  async setCount(fence: Fence, next: number): Promise<void> {
    await updateRecord<CounterRecord>(this.#store, this.#key, fence, (current) => ({ next: Math.max(current?.next ?? 1, next) }));
  }

  async recover(fence: Fence): Promise<number> {
    const record = await updateRecord<CounterRecord>(this.#store, this.#key, fence, (current) => current ?? { next: 1 });
    return record?.next ?? 1;
  }
}
