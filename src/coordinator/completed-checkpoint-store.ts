import type { CheckpointStorage } from '../checkpoint/checkpoint-storage.ts';
import type { Logger } from '../log/logger.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';

/**
 * The retained completed checkpoints, oldest first. Adding one beyond the retained count
 * discards (deletes) the oldest: it is subsumed.
 */
export class CompletedCheckpointStore {
  readonly #retained: number;
  readonly #storage: Pick<CheckpointStorage, 'discard'>;
  readonly #log: Logger;
  #checkpoints: CompletedCheckpoint[] = [];
  /** Retained checkpoints whose commit the sinks were told to make: their output may be visible. */
  readonly #commitNotified = new Set<number>();

  constructor(retained: number, storage: Pick<CheckpointStorage, 'discard'>, log: Logger) {
    this.#retained = retained;
    this.#storage = storage;
    this.#log = log;
  }

  /** Adds a completed checkpoint; one older than the latest is subsumed at once (returns false). */
  async add(checkpoint: CompletedCheckpoint): Promise<boolean> {
    const latest = this.latest();
    if (latest && checkpoint.id < latest.id) {
      await this.#discard(checkpoint, `subsumed by checkpoint ${latest.id}`);
      return false;
    }
    this.#checkpoints.push(checkpoint);
    while (this.#checkpoints.length > this.#retained) {
      const subsumed = this.#checkpoints.shift()!;
      this.#commitNotified.delete(subsumed.id);
      await this.#discard(subsumed, 'subsumed');
    }
    return true;
  }

  latest(): CompletedCheckpoint | undefined {
    return this.#checkpoints.at(-1);
  }

  all(): readonly CompletedCheckpoint[] {
    return this.#checkpoints;
  }

  /** Drops a checkpoint that turned out unreadable, so recovery falls back to the one before. */
  remove(id: number): void {
    this.#checkpoints = this.#checkpoints.filter((c) => c.id !== id);
    this.#commitNotified.delete(id);
  }

  /** The sinks were told checkpoint `id` is complete: from now on they may have committed its output. */
  markCommitNotified(id: number): void {
    if (this.#checkpoints.some((c) => c.id === id)) this.#commitNotified.add(id);
  }

  wasCommitNotified(id: number): boolean {
    return this.#commitNotified.has(id);
  }

  async discardAll(reason: string): Promise<void> {
    const all = this.#checkpoints;
    this.#checkpoints = [];
    this.#commitNotified.clear();
    for (const c of all) await this.#discard(c, reason);
  }

  async #discard(checkpoint: CompletedCheckpoint, reason: string): Promise<void> {
    try {
      await this.#storage.discard(checkpoint.directory);
      this.#log.debug('discarded checkpoint', { checkpointId: checkpoint.id, reason });
    } catch (e) {
      this.#log.warn('could not delete a discarded checkpoint', { checkpointId: checkpoint.id, path: checkpoint.directory, error: (e as Error).message });
    }
  }
}
