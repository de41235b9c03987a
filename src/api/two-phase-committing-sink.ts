import type { DeadLetter } from './dead-letter.ts';
import type { OutputTag } from './output-tag.ts';
import type { SinkContext } from './sink.ts';

/**
 * A sink with exactly-once output by two-phase commit (Flink's sink2 TwoPhaseCommittingSink):
 * its writer pre-commits at every checkpoint (what was written since the last one becomes
 * committables, not yet visible), weir keeps the committables in the checkpoint, and its
 * committer makes them visible once the checkpoint is complete. On a restore, the committables
 * of the restored checkpoint are committed (again: commit must be idempotent) and everything
 * else a failed attempt left is the committer's to clean up. A sink for a database or a broker
 * is a writer that stages and a committer that publishes.
 *
 * Commits run beside the task, not in it: a commit that fails is retried with backoff
 * (`commitRetry`) while records keep flowing, and one that keeps failing fails the job with a
 * CommitFailedError naming the committer's target and the committables.
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
  /** How a failing commit is retried before it fails the job. Unset: DEFAULT_COMMIT_RETRY. */
  readonly commitRetry?: CommitRetryPolicy;
  /**
   * Where records the target refuses go instead of failing the job (Flink's side outputs): the
   * stream `sinkTo(...).getSideOutput(tag)`. The writer reports them with `deadLetters`; each
   * reaches the side output once the checkpoint of the transaction that left it out completes
   * (or the input ends), and a restore from a checkpoint taken before that emits it then.
   * Unset: a refused record fails the job.
   */
  readonly deadLetterOutput?: OutputTag<DeadLetter<T>>;
  /**
   * For a sink that applies schema changes to its tables (a pipeline's database sink): which
   * records are changes that must wait until the transactions before them are committed, and
   * which sink table each record goes to. weir then holds a change and the later records of its
   * table until the first checkpoint after the change completes (in the checkpoint, so none is
   * lost or doubled); other tables go on. Records must reach the sink keyed by `tableOf` (a
   * restore gives each held table to the subtask that owns its key). Unset: no hold.
   */
  readonly schemaChanges?: SchemaChangeClassifier<T>;
  createWriter(ctx: SinkContext): PrecommittingSinkWriter<T, Committable> | Promise<PrecommittingSinkWriter<T, Committable>>;
  createCommitter(ctx: SinkContext): Committer<Committable> | Promise<Committer<Committable>>;
}

export interface SchemaChangeClassifier<T> {
  /** The sink table a record goes to. */
  tableOf(record: T): string;
  /** Whether the record is a schema change that must wait for the commits before it. */
  holdsBack(record: T): boolean;
}

export interface PrecommittingSinkWriter<T, Committable> {
  write(value: T): void;
  /**
   * A promise while the writer cannot take more (the task takes no input until it settles:
   * backpressure). The task's mails go on meanwhile, so a writer may wait for a commit: the
   * completion of the last checkpoint, whose prepared transaction holds the rows it writes, is
   * such a mail.
   */
  ready?(): Promise<void> | undefined;
  /** All input is consumed: write out what is buffered (a last pre-commit follows). */
  flush?(): void | Promise<void>;
  /**
   * Pre-commit: what was written since the last one, as committables of this checkpoint. Called
   * in the checkpoint's synchronous part, at the cut: records written after the call belong to
   * the next checkpoint. The promise may settle later: its work (flushing, a database's PREPARE)
   * is the checkpoint's asynchronous part, records keep flowing meanwhile, and the subtask
   * acknowledges the checkpoint only once it has settled. A rejection fails the task (what was
   * staged for the checkpoint is lost; the restart replays it). `checkpoint.savepoint` says the
   * checkpoint is a savepoint (absent for the last pre-commit after the input ended): a writer
   * that keeps work open across checkpoints closes it then, so that a savepoint holds no open
   * work and everything written before it is visible once it completes, a stop-with-savepoint
   * included.
   */
  prepareCommit(checkpointId: number, checkpoint?: PrecommitCheckpoint): Committable[] | Promise<Committable[]>;
  /**
   * With a dead-letter output: the records the target refused in the work of this pre-commit,
   * taken once after its promise has settled (the transaction holds every other record).
   */
  deadLetters?(checkpointId: number): readonly DeadLetter<T>[];
  /** The job finished: release what is held (everything is committed by now). */
  close?(): void | Promise<void>;
  /** The writer's own figures (`figure` or `figure:subject`), read each time its task reports, in the sink operator's `figures`. */
  metrics?(): Record<string, number>;
  /** The attempt was cancelled or failed: release what is held, commit nothing. */
  abort?(): void | Promise<void>;
}

/** The checkpoint a pre-commit belongs to. */
export interface PrecommitCheckpoint {
  readonly savepoint: boolean;
}

export interface Committer<Committable> {
  /** Where commits go (server, database, table), named in a CommitFailedError. Unset: the sink's operator. */
  readonly target?: string;
  /**
   * Makes committables visible. Idempotent: after a restore the same ones may be committed again.
   * A rejection is retried with backoff, unless the error says `unrecoverable: true` (no retry
   * can help: the job fails at once); an error with a `committable` field names the one that failed.
   */
  commit(committables: readonly Committable[]): void | Promise<void>;
  /**
   * Once, before this subtask commits what it restored: `retained` holds every subtask's
   * committables of the restored checkpoint; staged work not among them was left by a failed
   * attempt and will never be committed.
   */
  recover?(retained: readonly Committable[]): void | Promise<void>;
  /**
   * Once, on a start from no checkpoint: whatever an earlier run of this sink staged (found by
   * its transaction ids) can never be committed, and is rolled back.
   */
  abortLeftovers?(): void | Promise<void>;
  /** The task ended (finished, cancelled or failed): release connections. A commit still retrying is dropped. */
  close?(): void | Promise<void>;
}

/** Retries of a failing commit: the delay doubles from `initialBackoffMs` up to `maxBackoffMs`. */
export interface CommitRetryPolicy {
  /** Attempts in all, the first one included, before the job fails. */
  readonly maxAttempts: number;
  readonly initialBackoffMs: number;
  readonly maxBackoffMs: number;
}

/** About a minute of retries: long enough for a database to restart, short enough to notice one that does not come back. */
export const DEFAULT_COMMIT_RETRY: CommitRetryPolicy = { maxAttempts: 20, initialBackoffMs: 100, maxBackoffMs: 5_000 };

export function isTwoPhaseCommittingSink(sink: object): sink is TwoPhaseCommittingSink<unknown, unknown> {
  return typeof (sink as TwoPhaseCommittingSink<unknown, unknown>).createCommitter === 'function';
}
