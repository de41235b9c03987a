import { isTwoPhaseCommittingSink } from '../api/two-phase-committing-sink.ts';
import type { CheckpointStorage } from '../checkpoint/checkpoint-storage.ts';
import { CheckpointCorruptedError } from '../checkpoint/checkpoint-storage-error.ts';
import type { TaskRestoreState } from '../checkpoint/state-handles.ts';
import type { CheckpointMetadata } from '../checkpoint/checkpoint-metadata.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import { taskKey, type TaskKey } from '../ids/task-key.ts';
import type { Logger } from '../log/logger.ts';
import type { CheckpointStatsTracker } from './checkpoint-stats.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import type { CompletedCheckpointStore } from './completed-checkpoint-store.ts';
import { describeSinks, DuplicatingFallbackError } from './duplicating-fallback-error.ts';
import { assignState } from './state-assignment.ts';
import { recoverOwnCheckpoints } from './own-checkpoints-recovery.ts';

/** What an attempt starts from: every subtask's state, the split enumerators' states, and which checkpoint it was. */
export interface Restore {
  readonly checkpointId: number;
  readonly location: string;
  readonly isSavepoint: boolean;
  readonly assigned: Map<TaskKey, TaskRestoreState>;
  /** By source uid; undefined: the enumerators start afresh. */
  readonly coordinators: Record<string, unknown>;
}

export interface CheckpointRestorerDeps {
  readonly graph: JobGraph;
  readonly storage: CheckpointStorage;
  readonly store: CompletedCheckpointStore;
  readonly stats: CheckpointStatsTracker;
  readonly log: Logger;
  /** execution.checkpointing.fallback-past-committed: whether a fallback may commit output twice. */
  readonly fallbackPastCommitted: 'fail' | 'allow';
  readonly onRestored: (restore: Restore) => void;
  /** The job's id: a checkpoint of its own given as a path (a JobManager that started again) is retained as its own. */
  readonly jobId?: string;
  /** execution.state-recovery.claim-mode: whether another job's checkpoint given as a path becomes this job's (CLAIM). */
  readonly claimMode?: 'NO_CLAIM' | 'CLAIM';
}

/**
 * Chooses and reads what an attempt restores from (Flink's CheckpointCoordinator restore path):
 * a savepoint or retained checkpoint given at the start, or on a restart the latest completed
 * checkpoint that reads back whole; corrupt ones are skipped for the one before, loudly, unless
 * that would commit again output two-phase-commit sinks already committed (then the job fails,
 * unless the user allows it or every such sink declares idempotentCommits).
 */
export class CheckpointRestorer {
  readonly #d: CheckpointRestorerDeps;

  constructor(deps: CheckpointRestorerDeps) {
    this.#d = deps;
  }

  /** A savepoint or retained checkpoint (directory or `_metadata`): every state must find its operator unless `allowNonRestored`. */
  async fromPath(path: string, allowNonRestored: boolean): Promise<Restore> {
    const { metadata, location } = await this.#d.storage.readForRestore(path);
    if (this.#isOwn(metadata, location)) await recoverOwnCheckpoints(this.#d.storage, this.#d.store, { metadata, location }, this.#d.log);
    else if (this.#d.claimMode === 'CLAIM') await this.#claim(metadata, location);
    const restore = { checkpointId: metadata.checkpointId, location, isSavepoint: metadata.type === 'savepoint', assigned: assignState(metadata, location, this.#d.graph, allowNonRestored), coordinators: metadata.coordinators ?? {} };
    this.#announce(restore);
    return restore;
  }

  /**
   * The latest completed checkpoint that reads back whole, or `fallback` (the savepoint the job
   * started from) when none completed. Every retained one unreadable: starting over would repeat
   * what the completed checkpoints committed, so that is an error.
   */
  async latest(fallback: () => Promise<Restore | undefined>): Promise<Restore | undefined> {
    let skipped: Error | undefined;
    // Checkpoints dropped here whose output the sinks may have committed: a fallback replays it.
    const committed: number[] = [];
    for (;;) {
      const latest = this.#d.store.latest();
      if (!latest && skipped) throw skipped;
      if (!latest) return fallback();
      try {
        const { metadata, location } = await this.#d.storage.readForRestore(latest.directory);
        const restore = { checkpointId: latest.id, location, isSavepoint: false, assigned: assignState(metadata, location, this.#d.graph, true), coordinators: metadata.coordinators ?? {} };
        this.#announce(restore);
        return restore;
      } catch (e) {
        // Only a checkpoint that read back wrong is dropped. A store that did not answer (a timeout, no
        // quorum) says nothing about the checkpoint: dropping it would restart from an older one, or from
        // nothing, and commit again what it committed. The caller waits such errors out.
        if (!(e instanceof CheckpointCorruptedError)) throw e;
        if (this.#d.store.wasCommitNotified(latest.id)) committed.push(latest.id);
        const older = this.#d.store.all().at(-2);
        if (older) this.#fallBack(latest, older, e, committed);
        else this.#d.log.error(`checkpoint ${latest.id} cannot be restored, no older checkpoint is retained: ${e.message}`, { checkpointId: latest.id });
        this.#d.store.remove(latest.id);
        skipped = e;
      }
    }
  }

  /** Says why falling back from `latest` to `older` is allowed, loudly, or throws a DuplicatingFallbackError. */
  #fallBack(latest: CompletedCheckpoint, older: CompletedCheckpoint, error: CheckpointCorruptedError, committed: readonly number[]): void {
    const sinkUids = duplicatingSinks(this.#d.graph);
    const facts = { checkpointId: latest.id, fallbackCheckpointId: older.id, committedCheckpointIds: committed, sinkUids };
    const fields = { checkpointId: latest.id, fallbackCheckpointId: older.id, file: error.file };
    if (committed.length === 0 || sinkUids.length === 0) {
      const why = committed.length === 0 ? 'no sink was told to commit its output' : 'no two-phase-commit sink would commit output twice';
      this.#d.log.error(`checkpoint ${latest.id} cannot be restored, falling back to checkpoint ${older.id} (${why}): ${error.message}`, fields);
      return;
    }
    if (this.#d.fallbackPastCommitted !== 'allow') throw new DuplicatingFallbackError(facts, error);
    this.#d.log.error(
      `checkpoint ${latest.id} cannot be restored (${error.message}); falling back to checkpoint ${older.id}, as execution.checkpointing.fallback-past-committed: allow ` +
        `(--allow-duplicating-fallback) says: the output ${describeSinks(sinkUids)} committed for checkpoint ${committed.join(', ')} will be committed twice`,
      { ...fields, committedCheckpointIds: committed, sinkUids },
    );
  }

  /**
   * A JobManager that starts again restores its job from the latest retained checkpoint, by path:
   * that checkpoint is the job's own (same job id, in the job's location), so the job's retained
   * checkpoints are its own again (own-checkpoints-recovery.ts), whatever the claim mode.
   */
  #isOwn(metadata: CheckpointMetadata, location: string): boolean {
    const jobLocation = this.#d.storage.jobLocation;
    return metadata.type === 'checkpoint' && this.#d.jobId !== undefined && metadata.jobId === this.#d.jobId && jobLocation !== '' && location.startsWith(`${jobLocation}/`);
  }

  /**
   * CLAIM (Flink's claim mode): another job's retained checkpoint becomes this job's, retained as
   * if it had completed here: the next incremental checkpoint builds on its shared files, and once
   * it is subsumed it is deleted with the files no retained checkpoint names any more (in the other
   * job's location). Under NO_CLAIM, the default, it is never retained, so nothing of it is ever
   * deleted and the first checkpoint writes all its state anew. A savepoint is never claimed (DESIGN §7).
   */
  async #claim(metadata: CheckpointMetadata, location: string): Promise<void> {
    if (metadata.type !== 'checkpoint') {
      this.#d.log.info('execution.state-recovery.claim-mode CLAIM: a savepoint is never claimed; it stays where it is', { path: location });
      return;
    }
    await this.#d.store.adopt({ id: metadata.checkpointId, type: 'checkpoint', directory: location, triggeredAt: metadata.triggeredAt, completedAt: metadata.completedAt, stateBytes: 0, metadata });
    this.#d.log.info(`claimed checkpoint ${metadata.checkpointId} of job ${metadata.jobId}: it is deleted once subsumed`, { checkpointId: metadata.checkpointId, path: location });
  }

  #announce(restore: Restore): void {
    this.#d.stats.restored(restore.checkpointId, restore.location, restore.isSavepoint);
    this.#d.log.info(`restoring from ${restore.isSavepoint ? 'savepoint' : 'checkpoint'} ${restore.checkpointId}`, { path: restore.location });
    this.#d.onRestored(restore);
  }
}

/** Where each source subtask's reader will resume, as the restored state says (for people and logs). */
export function sourcePositions(graph: JobGraph, restore: Restore): Record<string, unknown[]> {
  const positions: Record<string, unknown[]> = {};
  for (const v of graph.vertices.filter((x) => x.isSource)) {
    for (let s = 0; s < v.parallelism; s++) {
      const state = restore.assigned.get(taskKey(v.id, s))?.operators[v.operators[0]!.uid]?.operator['_source-splits'];
      positions[`${v.name} ${s + 1}/${v.parallelism}`] = state?.values ?? [];
    }
  }
  return positions;
}

/** The uids of the job's two-phase-commit sinks that do not declare their commits idempotent. */
export function duplicatingSinks(graph: JobGraph): string[] {
  return graph.vertices.flatMap((v) => v.operators).flatMap((o) => (o.spec.kind === 'sink' && isTwoPhaseCommittingSink(o.spec.sink) && o.spec.sink.idempotentCommits !== true ? [o.uid] : []));
}
