import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { CapturedKeyedState, CapturedIncrementalState } from '../../state/captured-state.ts';
import { writeKeyedStateFile } from '../keyed-state-file.ts';
import type { KeyedStateHandle } from '../state-handles.ts';
import { stateFileName } from '../state-file-name.ts';
import { sharedFileName } from './shared-state-files.ts';

/**
 * Writes one operator subtask's part of an incremental checkpoint into the shared directory: a
 * full base when the plan says to materialize, else a delta of the entries changed since the
 * base (none changed: no file, the checkpoint names its base's files again). Returns the handle
 * `_metadata` files: the base with its deltas. A file is named for the checkpoint it was written
 * for, which is unique in the job, so no two writers ever share a name; a write that fails or is
 * aborted takes its partial file back.
 */
export async function writeIncrementalKeyedState(
  sharedDir: string,
  captured: CapturedKeyedState,
  incremental: CapturedIncrementalState,
  uid: string,
  subtask: number,
  signal: AbortSignal | undefined,
): Promise<KeyedStateHandle> {
  const { plan } = incremental;
  const base = plan.base;
  if (base !== null && (plan.changed === null || plan.changed.empty)) return base;
  const name = `${stateFileName(uid, subtask, 0)}-c${plan.checkpointId}-${base === null ? 'full' : 'delta'}`;
  const path = join(sharedDir, name);
  let written: KeyedStateHandle;
  try {
    // A delta is its tables alone (a snapshot that writes its own file writes the full state).
    const delta = { uid: captured.uid, keyGroupRange: captured.keyGroupRange, maxParallelism: captured.maxParallelism, tables: incremental.tables, ...(incremental.writeFile ? { writeFile: incremental.writeFile } : {}) };
    written = await writeKeyedStateFile(path, base === null ? captured : delta, signal);
  } catch (e) {
    await unlink(path).catch(() => {});
    throw e;
  }
  const file: KeyedStateHandle = { ...written, file: sharedFileName(name), writtenBy: plan.checkpointId };
  return base === null ? file : { ...base, deltas: [...(base.deltas ?? []), file] };
}
