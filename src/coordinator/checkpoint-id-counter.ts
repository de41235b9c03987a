/**
 * Where the CheckpointCoordinator takes every new checkpoint and savepoint id from (Flink's
 * CheckpointIDCounter as the coordinator sees it): in memory without high availability, the HA
 * store's counter under the leader's fence with it, so that two leaders never hand out the same
 * id and ids go on growing across failovers. A counter that needs no round trip answers with a
 * plain number: the coordinator then triggers in the same turn, as it did before there was a seam.
 */
export interface CheckpointIdCounter {
  /** Where the ids are kept, for the reason of a checkpoint that could not get one. */
  readonly description: string;
  /** The next id; the counter moves past it. */
  getAndIncrement(): number | Promise<number>;
  /** Moves the counter to at least `next` (after restoring a checkpoint or savepoint); never back. */
  setCount(next: number): void | Promise<void>;
}

export class InMemoryCheckpointIdCounter implements CheckpointIdCounter {
  readonly description = 'the JobMaster (in memory)';
  #next: number;

  constructor(next = 1) {
    this.#next = next;
  }

  getAndIncrement(): number {
    return this.#next++;
  }

  setCount(next: number): void {
    this.#next = Math.max(this.#next, next);
  }
}
