import { existsSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { PendingFileMissingError } from './pending-file-missing-error.ts';

/** A FileSink committable: a pending file, named with the absolute directory it was written in. */
export interface FileCommittable {
  readonly directory: string;
  readonly name: string;
}

/**
 * What a checkpoint may hold: a FileCommittable, or the bare file name of weirs that kept
 * committables relative to the sink's directory (their checkpoints and savepoints still restore).
 */
export type FileSinkCommittable = FileCommittable | string;

/** The visible name of a pending file: `.part-X.pending` -> `part-X`. */
export function committedName(pending: string): string {
  return pending.slice(1, -'.pending'.length);
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
    throw new Error(`file sink: cannot commit ${from}: ${(e as Error).message}`, { cause: e });
  }
}
