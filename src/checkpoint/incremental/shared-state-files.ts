import { posix } from 'node:path';
import { isNatsObjectLocation, natsObjectLocation, parseNatsObjectLocation } from '../checkpoint-location.ts';
import type { CheckpointMetadata } from '../checkpoint-metadata.ts';
import type { KeyedStateHandle } from '../state-handles.ts';

/**
 * Incremental checkpoints keep keyed state in files shared by several checkpoints, under the job
 * location's `shared/` (DESIGN §7). A handle names such a file relative to the checkpoint's own
 * directory (`../shared/<name>`), as it names every other file: a retained checkpoint restored by
 * another job still finds them beside it, and the same text names the file on a file system and
 * in an object store.
 */
export const SHARED_DIRECTORY = 'shared';
const SHARED_PREFIX = `../${SHARED_DIRECTORY}/`;

/** The handle's name of a shared file called `name`. */
export function sharedFileName(name: string): string {
  return `${SHARED_PREFIX}${name}`;
}

/**
 * Whether a handle's file is a shared one: relative, directly in a `shared/` directory. Mostly
 * `../shared/<name>`; a chain built on a claimed checkpoint of another job names that job's files
 * as `../../<other job>/shared/<name>` (rebaseHandle).
 */
export function isSharedFile(file: string): boolean {
  return file.startsWith('../') && posix.basename(posix.dirname(file)) === SHARED_DIRECTORY;
}

/** The shared file's own name (what the `shared/` directory lists), from a handle's name of it. */
export function sharedFileBaseName(file: string): string {
  return posix.basename(file);
}

/**
 * A handle written for a checkpoint at `from`, its shared files named for a checkpoint at `to`
 * instead (the same files: a job that claimed another job's checkpoint builds its next ones on
 * that chain, where it lies). Undefined when no relative name reaches them (another bucket).
 */
export function rebaseHandle(handle: KeyedStateHandle, from: string, to: string): KeyedStateHandle | undefined {
  const rename = (file: string): string | undefined => {
    if (!isSharedFile(file)) return undefined;
    const at = sharedFileLocation(from, file);
    if (!isNatsObjectLocation(to)) return isNatsObjectLocation(at) ? undefined : posix.relative(to, at);
    if (!isNatsObjectLocation(at)) return undefined;
    const a = parseNatsObjectLocation(at);
    const t = parseNatsObjectLocation(to);
    return a.bucket === t.bucket ? posix.relative(`/${t.path}`, `/${a.path}`) : undefined;
  };
  const files = keyedHandleFiles(handle).map((h) => ({ h, file: rename(h.file) }));
  if (files.some((f) => f.file === undefined)) return undefined;
  const [base, ...deltas] = files.map(({ h, file }) => ({ ...h, file: file! }));
  return deltas.length === 0 ? base! : { ...base!, deltas };
}

/** A file a handle names, resolved against the checkpoint's location (posix: object names and paths alike). */
export function resolveStateFile(location: string, file: string): string {
  if (file.startsWith('/')) return file;
  return posix.normalize(posix.join(location, file));
}

/**
 * Where a shared file lies, from the location of a checkpoint whose handle names it: the same
 * file has the same location whichever checkpoint (or job) names it, so the registry counts by it
 * and deletion goes to it.
 */
export function sharedFileLocation(checkpointLocation: string, file: string): string {
  if (!isNatsObjectLocation(checkpointLocation)) return resolveStateFile(checkpointLocation, file);
  const l = parseNatsObjectLocation(checkpointLocation);
  return natsObjectLocation({ bucket: l.bucket, path: resolveStateFile(l.path, file) });
}

/** The locations of the shared files a checkpoint at `location` references, each once. */
export function sharedFileLocations(metadata: CheckpointMetadata, location: string): string[] {
  return sharedStateFiles(metadata).map((f) => sharedFileLocation(location, f));
}

/** A location is a shared file's: directly in a `shared/` directory (nothing else is ever deleted as one). */
export function isSharedFileLocation(location: string): boolean {
  return posix.basename(posix.dirname(location)) === SHARED_DIRECTORY;
}

/** Every file of one keyed state handle, base first, then its deltas in order. */
export function keyedHandleFiles(handle: KeyedStateHandle): KeyedStateHandle[] {
  const { deltas, ...base } = handle;
  return [base, ...(deltas ?? [])];
}

/** The shared files a checkpoint references (as its handles name them), each once. */
export function sharedStateFiles(metadata: CheckpointMetadata): string[] {
  const files = new Set<string>();
  for (const op of metadata.operators) {
    for (const s of op.subtasks) {
      if (!s.keyed) continue;
      for (const h of keyedHandleFiles(s.keyed)) if (isSharedFile(h.file)) files.add(h.file);
    }
  }
  return [...files];
}

/** The shared files written for checkpoint `checkpointId` among a subtask's handles (its new files, the incremental part). */
export function filesWrittenFor(handles: ReadonlyArray<KeyedStateHandle | null>, checkpointId: number): KeyedStateHandle[] {
  const out: KeyedStateHandle[] = [];
  for (const h of handles) if (h) for (const f of keyedHandleFiles(h)) if (isSharedFile(f.file) && f.writtenBy === checkpointId) out.push(f);
  return out;
}
