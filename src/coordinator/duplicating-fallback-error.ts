import type { CheckpointCorruptedError } from '../checkpoint/checkpoint-storage-error.ts';

export interface DuplicatingFallbackFacts {
  /** The latest completed checkpoint, which cannot be restored. */
  readonly checkpointId: number;
  /** The older retained checkpoint a fallback would restore. */
  readonly fallbackCheckpointId: number;
  /** Checkpoints after the fallback one whose commit the sinks were told to make (their output is visible). */
  readonly committedCheckpointIds: readonly number[];
  /** The two-phase-commit sinks (uids) that do not declare idempotentCommits: they would commit that output again. */
  readonly sinkUids: readonly string[];
}

/**
 * A restart's latest checkpoint cannot be restored, and falling back to an older one would commit
 * again output that two-phase-commit sinks already made visible (duplicates a reader cannot tell
 * apart). The job fails instead, unless execution.checkpointing.fallback-past-committed allows it.
 */
export class DuplicatingFallbackError extends Error {
  readonly checkpointId: number;
  /** The damaged file of that checkpoint. */
  readonly file: string;
  readonly fallbackCheckpointId: number;
  readonly committedCheckpointIds: readonly number[];
  readonly sinkUids: readonly string[];
  /** A restart would meet the same damaged checkpoint: the job fails at once. */
  readonly unrecoverable = true;

  constructor(facts: DuplicatingFallbackFacts, cause: CheckpointCorruptedError) {
    super(
      `checkpoint ${facts.checkpointId} cannot be restored (${cause.message}), and falling back to checkpoint ${facts.fallbackCheckpointId} ` +
        `would replay records whose output ${describeSinks(facts.sinkUids)} already committed for checkpoint ${facts.committedCheckpointIds.join(', ')}: ` +
        `that output would be committed twice. To accept the duplicates for this restore, run with --allow-duplicating-fallback ` +
        `or set execution.checkpointing.fallback-past-committed: allow (a sink whose commits are upserts can declare idempotentCommits)`,
      { cause },
    );
    this.name = 'DuplicatingFallbackError';
    this.checkpointId = facts.checkpointId;
    this.file = cause.file;
    this.fallbackCheckpointId = facts.fallbackCheckpointId;
    this.committedCheckpointIds = facts.committedCheckpointIds;
    this.sinkUids = facts.sinkUids;
  }
}

export function describeSinks(uids: readonly string[]): string {
  return `the two-phase-commit sink${uids.length === 1 ? '' : 's'} ${uids.map((u) => `'${u}'`).join(', ')}`;
}
