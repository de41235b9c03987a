import { type SerializedError, serializeError } from '../../rpc/serialized-error.ts';
import type { TaskStatus } from '../../network/task-status.ts';
import type { CompletedCheckpoint } from '../completed-checkpoint.ts';
import type { ExecutionEntry } from '../execution-graph.ts';
import { SavepointError } from '../savepoint-error.ts';
import type { JobContext, JobState } from './job-state.ts';
import { restartOrFail } from './restarting.ts';

/**
 * Stop with savepoint (Flink's StopWithSavepoint): the sources stop (with drain, they end their
 * input so every operator flushes), a final aligned savepoint is taken, it commits as the last
 * checkpoint does, and the subtasks finish. If the savepoint fails, stopped sources read on and
 * the job is running again; drained input cannot be undone, so a failed drain fails over. Once the
 * savepoint completed it is the job's last commit: the job ends FINISHED, never restarted from an
 * older checkpoint (which would commit again what the savepoint committed).
 */
export class StoppingWithSavepoint implements JobState {
  readonly status = 'RUNNING' as const;
  readonly phase = 'stopping with a savepoint already';
  readonly #ctx: JobContext;
  readonly savepoint: Promise<CompletedCheckpoint>;
  /** The savepoint completed and was committed: its id. */
  #taken: number | undefined;

  constructor(ctx: JobContext, targetDir: string, drain: boolean) {
    this.#ctx = ctx;
    ctx.checkpoints.pauseScheduler();
    ctx.pool.all().stopSources({ attempt: ctx.attempt, drain });
    this.savepoint = this.#take(targetDir, drain);
  }

  async #take(targetDir: string, drain: boolean): Promise<CompletedCheckpoint> {
    const ctx = this.#ctx;
    const attempt = ctx.attempt;
    try {
      const savepoint = await ctx.checkpoints.trigger({ type: 'savepoint', targetDir, force: true });
      this.#taken = savepoint.id;
      // A synchronous savepoint commits side effects, as the last checkpoint of the job does.
      ctx.pool.all().notifyCheckpointComplete({ attempt, checkpointId: savepoint.id });
      ctx.pool.all().finish({ attempt });
      return savepoint;
    } catch (e) {
      if (ctx.isCurrent(this)) this.#failed(drain, e as Error);
      throw new SavepointError(ctx.jobId, (e as Error).message);
    }
  }

  #failed(drain: boolean, e: Error): void {
    const ctx = this.#ctx;
    if (drain) {
      this.onFailure(serializeError(new Error(`stop-with-savepoint with drain failed: ${e.message}`)));
      return;
    }
    ctx.pool.all().resumeSources({ attempt: ctx.attempt });
    ctx.goToRunning();
    ctx.checkpoints.startScheduler();
  }

  /** Drained sources' end of data must not start a final checkpoint: the savepoint is the last one. */
  onTaskStatus(_entry: ExecutionEntry, status: TaskStatus, error: SerializedError | undefined): void {
    if (status === 'failed') this.onFailure(error ?? { name: 'Error', message: 'task failed' });
    else if (status === 'finished' && this.#taken !== undefined && this.#ctx.execution.every((s) => s === 'finished')) this.#ctx.finish('FINISHED', undefined);
  }

  onFailure(cause: SerializedError): void {
    if (this.#taken === undefined) restartOrFail(this.#ctx, cause);
    else this.#failedAfterSavepoint(this.#taken, cause);
  }

  /**
   * A subtask or TaskManager failed while the subtasks finish after the savepoint: nothing was read
   * after the savepoint, which holds everything before it, so the job has stopped where it was
   * asked to. A restart would read on from an older checkpoint and commit again what the savepoint
   * committed. A commit this failure cut short is made when a job resumes from the savepoint.
   */
  #failedAfterSavepoint(savepointId: number, cause: SerializedError): void {
    const ctx = this.#ctx;
    ctx.log.warn(`${cause.message} after stop-with-savepoint ${savepointId} completed: the job ends FINISHED as stopped (resuming from the savepoint commits what this failure may have left uncommitted)`, {
      checkpointId: savepointId,
      error: cause.name,
    });
    ctx.finish('FINISHED', undefined);
  }

  cancel(): void {
    this.#ctx.finish('CANCELED', undefined);
  }
}
