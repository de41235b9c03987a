import { filesWrittenFor, sharedFileLocation, sharedFileLocations } from '../checkpoint/incremental/shared-state-files.ts';
import type { CheckpointMetadata } from '../checkpoint/checkpoint-metadata.ts';
import type { TaskStateSnapshot } from '../checkpoint/state-handles.ts';
import type { CompletedCheckpointStore } from './completed-checkpoint-store.ts';

/**
 * The shared files of incremental checkpoints in flight, beside the completed checkpoints' counts
 * in the store: the base a checkpoint builds on is pinned for it until it is done (registered
 * under its id, replaced by its own files when it completes, released when it does not), so that
 * no checkpoint completing meanwhile can subsume them away; files written for a checkpoint that
 * does not complete go once nothing holds them.
 */
export class PendingSharedFiles {
  readonly #store: CompletedCheckpointStore;
  readonly #locationOf: (checkpointId: number) => string;

  constructor(store: CompletedCheckpointStore, locationOf: (checkpointId: number) => string) {
    this.#store = store;
    this.#locationOf = locationOf;
  }

  /** Pins the latest completed checkpoint's files for checkpoint `id`; its id, or null when there is none (the first is full). */
  pinBase(id: number): number | null {
    const base = this.#store.latest();
    if (base === undefined) return null;
    this.#store.shared.register(id, this.#store.shared.filesOf(base.id));
    return base.id;
  }

  /** A checkpoint that will not complete lets go of its pin, and of the shared files written for it alone. */
  async release(id: number, states: Iterable<TaskStateSnapshot>): Promise<void> {
    const shared = this.#store.shared;
    const freed = shared.release(id);
    const written = [...states].flatMap((s) => filesWrittenFor(s.operators.map((o) => o.keyed), id).map((f) => sharedFileLocation(this.#locationOf(id), f.file)));
    await this.#store.discardShared([...new Set([...freed, ...written.filter((f) => shared.references(f) === 0)])], id);
  }

  /**
   * Shared files a checkpoint names that are neither held by a checkpoint (its own pin among them)
   * nor written for it: deleted already, so it could never be restored. Only concurrent
   * checkpoints could bring that about (with one at a time, a base is retained until it is done).
   */
  discarded(id: number, targetDir: string, states: Iterable<TaskStateSnapshot>, metadata: CheckpointMetadata): string[] {
    const names = sharedFileLocations(metadata, targetDir);
    if (names.length === 0) return [];
    const written = new Set([...states].flatMap((s) => filesWrittenFor(s.operators.map((o) => o.keyed), id).map((f) => sharedFileLocation(targetDir, f.file))));
    return names.filter((f) => !written.has(f) && this.#store.shared.references(f) === 0);
  }
}
