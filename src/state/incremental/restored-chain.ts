import type { KeyedStateHandle, OperatorRestoreState, TaskRestoreState } from '../../checkpoint/state-handles.ts';
import type { KeyGroupRange } from '../key-group.ts';
import type { KeyedStateBackend } from '../keyed-state-backend.ts';

/** The incremental chain one keyed operator subtask was restored from. */
export interface RestoredChain {
  readonly checkpointId: number;
  readonly handle: KeyedStateHandle;
  /** The restored checkpoint's location (as stored, not a staged copy): the handle's names are relative to it. */
  readonly location: string;
}

/**
 * After a keyed restore: a subtask restored from exactly one handle of an incremental checkpoint
 * tells its backend, which may then build its next checkpoint on that chain instead of writing a
 * full one (incremental-snapshots.ts says when it may).
 */
export function noteRestoredChain(backend: KeyedStateBackend, state: OperatorRestoreState, restore: TaskRestoreState | null | undefined): void {
  if (!restore || state.keyed.length !== 1) return;
  backend.restoredChain?.({ checkpointId: restore.checkpointId, handle: state.keyed[0]!, location: restore.directory });
}

/**
 * Whether `handle` holds state of no key group outside `range`: a new checkpoint naming it for
 * this subtask claims no other subtask's key groups (after a rescale a single handle may hold more).
 */
export function handleWithin(handle: KeyedStateHandle, range: KeyGroupRange): boolean {
  const files = [handle, ...(handle.deltas ?? [])];
  return files.every((f) => f.keyGroups.every((g) => g.keyGroup >= range.start && g.keyGroup <= range.end));
}
