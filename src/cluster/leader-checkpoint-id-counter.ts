import type { CheckpointIdCounter } from '../coordinator/checkpoint-id-counter.ts';
import type { CheckpointIdCounter as HaCheckpointIdCounter } from '../ha/checkpoint-id-counter.ts';
import type { Fence } from '../ha/fence.ts';

/**
 * A job's checkpoint id counter in the HA store, bound to the leadership its JobMaster runs under:
 * every id is a compare-and-set fenced by that leadership's epoch, so a deposed leader gets none.
 */
export class LeaderCheckpointIdCounter implements CheckpointIdCounter {
  readonly description: string;
  readonly #counter: HaCheckpointIdCounter;
  readonly #fence: Fence;

  constructor(counter: HaCheckpointIdCounter, fence: Fence, storeDescription: string) {
    this.#counter = counter;
    this.#fence = fence;
    this.description = `the checkpoint id counter in ${storeDescription}`;
  }

  getAndIncrement(): Promise<number> {
    return this.#counter.getAndIncrement(this.#fence);
  }

  setCount(next: number): Promise<void> {
    return this.#counter.setCount(this.#fence, next);
  }
}
