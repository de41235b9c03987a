import type { CheckpointStorage } from '../checkpoint/checkpoint-storage.ts';
import { SharedStateRegistry } from '../checkpoint/incremental/shared-state-registry.ts';
import { sharedFileLocations } from '../checkpoint/incremental/shared-state-files.ts';
import type { Logger } from '../log/logger.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';

/**
 * The retained completed checkpoints, oldest first. Adding one beyond the retained count
 * discards (deletes) the oldest: it is subsumed. Files shared by incremental checkpoints are
 * counted in `shared` (each retained checkpoint references the ones its `_metadata` names) and
 * deleted with the last checkpoint that references them.
 */
export class CompletedCheckpointStore {
  readonly #retained: number;
  readonly #storage: Pick<CheckpointStorage, 'discard'> & Partial<Pick<CheckpointStorage, 'discardShared'>>;
  readonly shared = new SharedStateRegistry();
  readonly #log: Logger;
  #checkpoints: CompletedCheckpoint[] = [];
  /** Retained checkpoints whose commit the sinks were told to make: their output may be visible. */
  readonly #commitNotified = new Set<number>();

  constructor(retained: number, storage: Pick<CheckpointStorage, 'discard'> & Partial<Pick<CheckpointStorage, 'discardShared'>>, log: Logger) {
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
    // Its own references first (in place of the pin its trigger took), then the subsumed ones go.
    await this.discardShared(this.shared.register(checkpoint.id, sharedFileLocations(checkpoint.metadata, checkpoint.directory)), checkpoint.id);
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

  /**
   * A checkpoint of this job that a new JobMaster restores from (a restart of the JobManager):
   * retained as if it had completed here, so its files are counted and it is subsumed in turn.
   */
  async adopt(checkpoint: CompletedCheckpoint): Promise<void> {
    if (this.#checkpoints.some((c) => c.id === checkpoint.id)) return;
    await this.add(checkpoint);
  }

  /** Drops a checkpoint that turned out unreadable, so recovery falls back to the one before (its files stay, for whoever looks into it). */
  remove(id: number): void {
    this.shared.release(id);
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

  /** Deletes shared files no retained or pending checkpoint references any more. */
  async discardShared(files: readonly string[], checkpointId?: number): Promise<void> {
    if (files.length === 0 || !this.#storage.discardShared) return;
    try {
      await this.#storage.discardShared(files);
      this.#log.debug('discarded shared state files', { files: files.length, ...(checkpointId !== undefined ? { checkpointId } : {}) });
    } catch (e) {
      this.#log.warn('could not delete shared state files', { files: files.join(', '), error: (e as Error).message });
    }
  }

  async #discard(checkpoint: CompletedCheckpoint, reason: string): Promise<void> {
    const freed = this.shared.release(checkpoint.id);
    try {
      await this.#storage.discard(checkpoint.directory);
      this.#log.debug('discarded checkpoint', { checkpointId: checkpoint.id, reason });
    } catch (e) {
      this.#log.warn('could not delete a discarded checkpoint', { checkpointId: checkpoint.id, path: checkpoint.directory, error: (e as Error).message });
    }
    await this.discardShared(freed, checkpoint.id);
  }
}
