import type { SinkContext } from './sink.ts';

/**
 * A sink with exactly-once output by two-phase commit (Flink's sink2 TwoPhaseCommittingSink):
 * its writer pre-commits at every checkpoint (what was written since the last one becomes
 * committables, not yet visible), weir keeps the committables in the checkpoint, and its
 * committer makes them visible once the checkpoint is complete. On a restore, the committables
 * of the restored checkpoint are committed (again: commit must be idempotent) and everything
 * else a failed attempt left is the committer's to clean up. A sink for a database or a broker
 * is a writer that stages and a committer that publishes.
 */
export interface TwoPhaseCommittingSink<T, Committable> {
  /**
   * Committing the output of the same records again leaves what a reader sees unchanged (an
   * upsert by key, not an append). When the latest checkpoint cannot be restored, weir falls back
   * to an older one only if every two-phase-commit sink of the job says so (or the user allows it,
   * execution.checkpointing.fallback-past-committed): the fallback replays records whose output
   * was already committed. Unset: false.
   */
  readonly idempotentCommits?: boolean;
  createWriter(ctx: SinkContext): PrecommittingSinkWriter<T, Committable> | Promise<PrecommittingSinkWriter<T, Committable>>;
  createCommitter(ctx: SinkContext): Committer<Committable> | Promise<Committer<Committable>>;
}

export interface PrecommittingSinkWriter<T, Committable> {
  write(value: T): void;
  /** A promise while the writer cannot take more (the task waits for it: backpressure). */
  ready?(): Promise<void> | undefined;
  /** All input is consumed: write out what is buffered (a last pre-commit follows). */
  flush?(): void | Promise<void>;
  /**
   * Pre-commit, in a checkpoint's synchronous part: what was written since the last one, as
   * committables of this checkpoint. `checkpoint.savepoint` says the checkpoint is a savepoint
   * (absent for the last pre-commit after the input ended): a writer that keeps work open across
   * checkpoints closes it then, so that a savepoint holds no open work and everything written
   * before it is visible once it completes, a stop-with-savepoint included.
   */
  prepareCommit(checkpointId: number, checkpoint?: PrecommitCheckpoint): Committable[] | Promise<Committable[]>;
  /** The job finished: release what is held (everything is committed by now). */
  close?(): void | Promise<void>;
  /** The attempt was cancelled or failed: release what is held, commit nothing. */
  abort?(): void | Promise<void>;
}

/** The checkpoint a pre-commit belongs to. */
export interface PrecommitCheckpoint {
  readonly savepoint: boolean;
}

export interface Committer<Committable> {
  /** Makes committables visible. Idempotent: after a restore the same ones may be committed again. */
  commit(committables: readonly Committable[]): void | Promise<void>;
  /**
   * Once, before this subtask commits what it restored: `retained` holds every subtask's
   * committables of the restored checkpoint; staged work not among them was left by a failed
   * attempt and will never be committed.
   */
  recover?(retained: readonly Committable[]): void | Promise<void>;
}

export function isTwoPhaseCommittingSink(sink: object): sink is TwoPhaseCommittingSink<unknown, unknown> {
  return typeof (sink as TwoPhaseCommittingSink<unknown, unknown>).createCommitter === 'function';
}
