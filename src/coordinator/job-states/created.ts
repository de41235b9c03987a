import type { SerializedError } from '../../rpc/serialized-error.ts';
import { SHUTDOWN } from '../../lifecycle/service.ts';
import type { JobContext, JobState } from './job-state.ts';
import { restartOrFail } from './restarting.ts';
import { whileStorageUnreachable } from './while-storage-unreachable.ts';
import { retainsOnCancel } from '../checkpoint-retention.ts';

/**
 * The job before its first attempt (Flink's Created and WaitingForResources): checkpoint storage
 * is prepared, the TaskManagers start, the savepoint to start from (if any) is read, and the
 * first attempt is deployed. A cancel meanwhile stops what was started.
 */
export class Created implements JobState {
  readonly status = 'CREATED' as const;
  readonly #ctx: JobContext;

  constructor(ctx: JobContext) {
    this.#ctx = ctx;
  }

  async start(): Promise<void> {
    const ctx = this.#ctx;
    try {
      await whileStorageUnreachable(ctx, this, 'preparing the checkpoint storage', () => ctx.storage.initialize(ctx.checkpoints.periodic));
      // Cancelled while starting: what the cleanup ran before could not see goes now, unless it
      // keeps the job's checkpoints (a recovered job's, retained on cancel, or any suspended job's).
      if (!ctx.isCurrent(this)) {
        if (ctx.endStatus() === 'CANCELED' && !retainsOnCancel(ctx.plan.config)) await ctx.storage.discardJob();
        return;
      }
      await ctx.pool.start();
      if (!ctx.isCurrent(this)) return void (await ctx.pool.stop(SHUTDOWN));
      const restore = await whileStorageUnreachable(ctx, this, 'reading the snapshot to start from', () => ctx.restoreOriginal());
      if (!ctx.isCurrent(this)) return;
      ctx.sources.restoreFrom(restore?.coordinators);
      await ctx.deploy(restore);
    } catch (e) {
      if (ctx.isCurrent(this)) ctx.finish('FAILED', e as Error);
    }
  }

  onFailure(cause: SerializedError): void {
    restartOrFail(this.#ctx, cause);
  }

  onTaskStatus(): void {}

  cancel(): void {
    this.#ctx.finish('CANCELED', undefined);
  }
}
