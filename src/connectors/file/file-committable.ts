import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { FileRenameError } from '../../fs/file-rename-error.ts';
import { PendingFileMissingError } from './pending-file-missing-error.ts';

/** A FileSink committable: a pending file, named with the absolute directory it was written in. */
export interface FileCommittable {
  readonly directory: string;
  readonly name: string;
}

/**
 * A part file kept open across a checkpoint (Flink's resumable recoverable): `name` is its
 * `.part-X.inprogress` name, `length` the bytes written and fsynced when the checkpoint was taken.
 * Committed only when the job is restored from that checkpoint: cut back to `length` (what came
 * after belongs to records that are replayed) and renamed to `part-X`. At a checkpoint's
 * completion it is still being written, and commit leaves it alone.
 */
export interface InProgressFile {
  readonly directory: string;
  readonly name: string;
  readonly length: number;
}

/**
 * What a checkpoint may hold: a FileCommittable, an InProgressFile, or the bare file name of
 * weirs that kept committables relative to the sink's directory (their checkpoints and savepoints
 * still restore).
 */
export type FileSinkCommittable = FileCommittable | InProgressFile | string;

export function isInProgressFile(c: FileSinkCommittable): c is InProgressFile {
  return typeof c === 'object' && typeof (c as InProgressFile).length === 'number';
}

/** The visible name of a pending file: `.part-X.pending` -> `part-X` (and `.part-X.inprogress` -> `part-X`). */
export function committedName(pending: string): string {
  return pending.slice(1, pending.lastIndexOf('.'));
}

/** The pending name of a hidden part file: `.part-X.inprogress` -> `.part-X.pending`. */
export function pendingName(hidden: string): string {
  return `${hidden.slice(0, hidden.lastIndexOf('.'))}.pending`;
}

/**
 * Commits a part file of the restored checkpoint that was open then: found in progress or pending
 * (rolled by the failed attempt after the checkpoint), cut back to the recorded length, fsynced,
 * renamed to its visible name. Already committed is done. Returns the directory it is in.
 */
export function commitInProgress(c: InProgressFile, sinkDirectory: string): string {
  for (const dir of new Set([c.directory, sinkDirectory])) {
    for (const name of [c.name, pendingName(c.name)]) {
      if (!existsSync(join(dir, name))) continue;
      cutBack(join(dir, name), c.length);
      if (renamed(join(dir, name), join(dir, committedName(c.name)))) return dir;
    }
    if (existsSync(join(dir, committedName(c.name)))) return dir;
  }
  throw new PendingFileMissingError(c.name, c.directory, sinkDirectory);
}

/** Truncates to the checkpoint's length: shorter than that, the checkpoint's own bytes are lost. */
function cutBack(path: string, length: number): void {
  const fd = openSync(path, 'r+');
  try {
    const size = fstatSync(fd).size;
    if (size < length) throw new Error(`file sink: cannot commit ${path}: it has ${size} bytes, the restored checkpoint recorded ${length}`);
    if (size > length) ftruncateSync(fd, length);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Renames the pending file to its visible name where it was written; if it is not there, in the
 * sink's directory (an output directory moved with its pending files). Already committed is done.
 * Nowhere to be found cannot change by a restart: a PendingFileMissingError fails the job at once.
 * Returns the directory it is committed in, which the caller fsyncs to make the rename durable.
 */
export function commitPending(c: FileSinkCommittable, sinkDirectory: string): string {
  const name = typeof c === 'string' ? c : c.name;
  const writtenIn = typeof c === 'string' ? undefined : c.directory;
  for (const dir of new Set([writtenIn ?? sinkDirectory, sinkDirectory])) {
    if (renamed(join(dir, name), join(dir, committedName(name)))) return dir;
  }
  throw new PendingFileMissingError(name, writtenIn, sinkDirectory);
}

/** True when the file is committed (now or before); false when neither it nor its committed name exists. */
function renamed(from: string, to: string): boolean {
  try {
    renameSync(from, to);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return existsSync(to);
    throw new FileRenameError({ from, to }, e);
  }
}
