import type { SerializedError, TaskStatus } from '../../network/control-messages.ts';
import { serializeError } from '../../network/control-messages.ts';
import type { CompletedCheckpoint } from '../completed-checkpoint.ts';
import type { ExecutionEntry } from '../execution-graph.ts';
import { SavepointError } from '../savepoint-error.ts';
import type { JobContext, JobState } from './job-state.ts';
import { restartOrFail } from './restarting.ts';

/**
 * Stop with savepoint (Flink's StopWithSavepoint): the sources stop (with drain, they end their
 * input so every operator flushes), a final aligned savepoint is taken, it commits as the last
 * checkpoint does, and the subtasks finish. If the savepoint fails, stopped sources read on and
 * the job is running again; drained input cannot be undone, so a failed drain fails over.
 */
export class StoppingWithSavepoint implements JobState {
  readonly status = 'RUNNING' as const;
  readonly #ctx: JobContext;
  readonly savepoint: Promise<CompletedCheckpoint>;
  #taken = false;

  constructor(ctx: JobContext, targetDir: string, drain: boolean) {
    this.#ctx = ctx;
    ctx.checkpoints.stopPeriodic();
    ctx.pool.broadcast({ type: 'stop-sources', attempt: ctx.attempt, drain });
    this.savepoint = this.#take(targetDir, drain);
  }

  async #take(targetDir: string, drain: boolean): Promise<CompletedCheckpoint> {
    const ctx = this.#ctx;
    const attempt = ctx.attempt;
    try {
      const savepoint = await ctx.checkpoints.trigger({ type: 'savepoint', targetDir, force: true });
      this.#taken = true;
      // A synchronous savepoint commits side effects, as the last checkpoint of the job does.
      ctx.pool.broadcast({ type: 'checkpoint-complete', attempt, checkpointId: savepoint.id });
      ctx.pool.broadcast({ type: 'finish', attempt });
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
    ctx.pool.broadcast({ type: 'resume-sources', attempt: ctx.attempt });
    ctx.goToRunning();
    ctx.checkpoints.start();
  }

  /** Drained sources' end of data must not start a final checkpoint: the savepoint is the last one. */
  onTaskStatus(_entry: ExecutionEntry, status: TaskStatus, error: SerializedError | undefined): void {
    if (status === 'failed') this.onFailure(error ?? { name: 'Error', message: 'task failed' });
    else if (status === 'finished' && this.#taken && this.#ctx.execution.every((s) => s === 'finished')) this.#ctx.finish('FINISHED', undefined);
  }

  onFailure(cause: SerializedError): void {
    restartOrFail(this.#ctx, cause);
  }

  cancel(): void {
    this.#ctx.finish('CANCELED', undefined);
  }
}
