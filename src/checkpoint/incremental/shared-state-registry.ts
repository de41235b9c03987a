import type { CheckpointMetadata } from '../checkpoint-metadata.ts';
import { sharedFileLocations } from './shared-state-files.ts';

/**
 * Reference counts of the files shared by incremental checkpoints (Flink's SharedStateRegistry),
 * by each file's location (sharedFileLocation), so checkpoints of two locations (a claimed one of
 * another job, CLAIM) count the same file once.
 * Each checkpoint that may still be restored from, or built on, holds one reference to every
 * shared file it names: a retained completed checkpoint, and a pending one to the files of the
 * checkpoint it builds on (registered at its trigger, so that a newer checkpoint completing in
 * the meantime cannot subsume those files away from under it). A file whose count falls to zero
 * is returned to the caller, which deletes it; nothing else ever deletes a shared file.
 *
 * Only files of the job's own location are ever registered: a job restored from another job's
 * checkpoint (NO_CLAIM) writes a full first checkpoint and never names that job's files, so it
 * can never delete them.
 */
export class SharedStateRegistry {
  readonly #counts = new Map<string, number>();
  readonly #byCheckpoint = new Map<number, readonly string[]>();

  /**
   * Checkpoint `checkpointId` now references `files` (in place of what it referenced before, if
   * it was registered: a pending checkpoint's pin replaced by its own files at completion).
   * Returns the files no checkpoint references any more.
   */
  register(checkpointId: number, files: Iterable<string>): string[] {
    const unique = [...new Set(files)];
    for (const f of unique) this.#counts.set(f, (this.#counts.get(f) ?? 0) + 1);
    const before = this.#byCheckpoint.get(checkpointId);
    this.#byCheckpoint.set(checkpointId, unique);
    return before === undefined ? [] : this.#decrement(before);
  }

  /** Checkpoint `checkpointId` is subsumed, discarded or aborted: returns the files nothing references any more. */
  release(checkpointId: number): string[] {
    const files = this.#byCheckpoint.get(checkpointId);
    if (files === undefined) return [];
    this.#byCheckpoint.delete(checkpointId);
    return this.#decrement(files);
  }

  #decrement(files: readonly string[]): string[] {
    const freed: string[] = [];
    for (const f of files) {
      const n = (this.#counts.get(f) ?? 0) - 1;
      if (n > 0) this.#counts.set(f, n);
      else {
        this.#counts.delete(f);
        freed.push(f);
      }
    }
    return freed;
  }

  /** How many checkpoints reference `file` (0: none; it may be deleted). */
  references(file: string): number {
    return this.#counts.get(file) ?? 0;
  }

  isRegistered(checkpointId: number): boolean {
    return this.#byCheckpoint.has(checkpointId);
  }

  /** The files `checkpointId` references, as registered. */
  filesOf(checkpointId: number): readonly string[] {
    return this.#byCheckpoint.get(checkpointId) ?? [];
  }

  /** Every file (location) some checkpoint references. */
  get files(): string[] {
    return [...this.#counts.keys()];
  }

  /**
   * The counts of a JobManager that starts again: every retained checkpoint's `_metadata` holds
   * the files it needs, so reading them back gives the counts the last leader had for them.
   */
  static rebuild(retained: Iterable<{ readonly metadata: CheckpointMetadata; readonly location: string }>): SharedStateRegistry {
    const registry = new SharedStateRegistry();
    for (const { metadata, location } of retained) registry.register(metadata.checkpointId, sharedFileLocations(metadata, location));
    return registry;
  }
}
