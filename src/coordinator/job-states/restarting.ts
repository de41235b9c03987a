import type { SerializedError } from '../../rpc/serialized-error.ts';
import { CancellationWatch } from '../cancellation-watch.ts';
import { whileStorageUnreachable } from './while-storage-unreachable.ts';
import type { JobContext, JobState } from './job-state.ts';

/**
 * A failure of the running job: the restart strategy decides. No restart (or an error saying the
 * job cannot run as defined, Flink's SuppressRestartsException) fails the job; otherwise it goes
 * to Restarting.
 */
export function restartOrFail(ctx: JobContext, cause: SerializedError): void {
  if (cause.unrecoverable) {
    ctx.fail(cause, 'the error says the job cannot run as defined, so it is not restarted');
    return;
  }
  const decision = ctx.restartStrategy.onFailure(ctx.clock.now());
  if (!decision.restart) ctx.fail(cause, decision.reason);
  else ctx.goToRestarting(cause, decision.delayMs);
}

/**
 * The failed attempt is being stopped and the next prepared (Flink's Restarting): its subtasks are
 * cancelled, and after the restart delay, once every TaskManager has confirmed they stopped (or
 * is given up on and replaced), the next attempt is deployed from the latest completed
 * checkpoint. Failures meanwhile change nothing: the restart is already under way.
 */
export class Restarting implements JobState {
  readonly status = 'RESTARTING' as const;
  readonly #ctx: JobContext;
  readonly #cancellation: CancellationWatch;

  constructor(ctx: JobContext, delayMs: number) {
    this.#ctx = ctx;
    const timeoutMs = ctx.plan.config['task.cancellation.timeout'];
    this.#cancellation = new CancellationWatch(ctx.attempt, ctx.pool.live(), timeoutMs, ctx.clock, (stragglers) => {
      for (const i of stragglers) ctx.pool.lose(i, { kind: 'cancellation-timeout', timeoutMs });
    });
    ctx.pool.all().cancel({ attempt: ctx.attempt });
    ctx.clock.schedule(() => void this.#restart(), delayMs);
  }

  /** A TaskManager confirmed that the failed attempt's subtasks stopped, or was lost (it is replaced anyway). */
  canceled(taskManager: number, attempt: number): void {
    if (attempt === this.#cancellation.attempt) this.#cancellation.answered(taskManager);
  }

  /** More failures change nothing, but a TaskManager lost meanwhile will not answer the cancel: it is not waited for. */
  onFailure(cause: SerializedError): void {
    if (typeof cause.taskManager === 'number') this.#cancellation.answered(cause.taskManager);
  }

  onTaskStatus(): void {}

  cancel(): void {
    this.#ctx.finish('CANCELED', undefined);
  }

  async #restart(): Promise<void> {
    const ctx = this.#ctx;
    try {
      // Their answers also follow the positions where their readers stood (at-most-once).
      await this.#cancellation.done;
      if (!ctx.isCurrent(this)) return;
      await ctx.pool.replaceLost();
      // A checkpoint of the failed attempt may still be completing: it must not subsume (delete)
      // the checkpoint chosen for the restore while the new attempt reads it.
      await ctx.checkpoints.settled();
      if (!ctx.isCurrent(this)) return;
      const restore = ctx.checkpoints.periodic ? await whileStorageUnreachable(ctx, this, 'reading the checkpoint to restore', () => ctx.restorer.latest(() => ctx.restoreOriginal())) : undefined;
      // The enumerators start from the restored checkpoint; without checkpoints afresh, except
      // at-most-once, which goes on from where they were (kept at the failure).
      if (ctx.checkpoints.periodic) ctx.sources.restoreFrom(restore?.coordinators);
      else if (ctx.plan.config['execution.checkpointing.mode'] !== 'at-most-once') ctx.sources.restoreFrom(undefined);
      if (!ctx.isCurrent(this)) return;
      await ctx.deploy(restore);
    } catch (e) {
      if (ctx.isCurrent(this)) ctx.finish('FAILED', e as Error);
    }
  }
}
