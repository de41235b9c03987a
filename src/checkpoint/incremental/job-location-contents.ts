import type { CheckpointMetadata } from '../checkpoint-metadata.ts';

/**
 * What a job's checkpoint location holds, as its storage lists it: what a JobManager that starts
 * again rebuilds its reference counts from, and what it finds there that nothing names any more
 * (files of checkpoints the last leader had not finished, or had not finished deleting).
 */
export interface JobLocationContents {
  /** Checkpoints whose `_metadata` reads back, by id. */
  readonly completed: ReadonlyArray<{ readonly location: string; readonly metadata: CheckpointMetadata }>;
  /** Checkpoint locations without a `_metadata`: never completed. */
  readonly incomplete: readonly string[];
  /** The locations of the files in the job's `shared/`. */
  readonly sharedFiles: readonly string[];
  /**
   * Whether the listing is known to hold everything stored (a directory's), or may miss some (an
   * object store's stream catching up): then a checkpoint may be missing from `completed`, and a
   * shared file no listed checkpoint names may still be named by it.
   */
  readonly complete: boolean;
}

/** The checkpoint a shared file was written for, from its name (`…-c<n>-full|delta`, write-incremental-keyed-state.ts). */
export function writtenForOfName(location: string): number | undefined {
  const m = /-c(\d+)-(?:full|delta)$/.exec(location);
  return m ? Number(m[1]) : undefined;
}

/** The checkpoint id of a location's last part `chk-<n>`, or undefined for anything else. */
export function checkpointIdOfName(name: string): number | undefined {
  const m = /^chk-(\d+)$/.exec(name);
  return m ? Number(m[1]) : undefined;
}
