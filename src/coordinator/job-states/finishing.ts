import { type SerializedError, serializeError } from '../../rpc/serialized-error.ts';
import type { TaskStatus } from '../../network/task-status.ts';
import type { ExecutionEntry } from '../execution-graph.ts';
import type { JobContext, JobState } from './job-state.ts';
import { restartOrFail } from './restarting.ts';

/**
 * Every subtask has consumed all its input: a final checkpoint makes sinks commit the rest, then
 * the subtasks are told to finish, and the job is FINISHED when all have. Without checkpoints the
 * finished input is final at once.
 */
export class Finishing implements JobState {
  readonly status = 'RUNNING' as const;
  readonly phase = 'finishing: its input has ended and the final checkpoint commits the rest';
  readonly #ctx: JobContext;

  constructor(ctx: JobContext, finalCheckpoint: boolean) {
    this.#ctx = ctx;
    if (finalCheckpoint) void this.#finalCheckpoint();
    else ctx.pool.all().finish({ attempt: ctx.attempt });
  }

  async #finalCheckpoint(): Promise<void> {
    const ctx = this.#ctx;
    ctx.checkpoints.pauseScheduler();
    // A periodic checkpoint may still be writing its state: let it end first. A second one
    // started beside it would make every keyed state copy all its entries in its synchronous
    // part (copy-on-write serves one snapshot at a time), a long pause with a large state.
    await ctx.checkpoints.inFlightSettled();
    if (!ctx.isCurrent(this)) return;
    try {
      await ctx.checkpoints.trigger({ type: 'checkpoint', force: true });
    } catch (e) {
      if (ctx.isCurrent(this)) this.onFailure(serializeError(new Error(`the final checkpoint failed: ${(e as Error).message}`)));
      return;
    }
    if (ctx.isCurrent(this)) ctx.pool.all().finish({ attempt: ctx.attempt });
  }

  onTaskStatus(_entry: ExecutionEntry, status: TaskStatus, error: SerializedError | undefined): void {
    if (status === 'failed') this.onFailure(error ?? { name: 'Error', message: 'task failed' });
    else if (status === 'finished' && this.#ctx.execution.every((s) => s === 'finished')) this.#ctx.finish('FINISHED', undefined);
  }

  onFailure(cause: SerializedError): void {
    restartOrFail(this.#ctx, cause);
  }

  cancel(): void {
    this.#ctx.finish('CANCELED', undefined);
  }
}
