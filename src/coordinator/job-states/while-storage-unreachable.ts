import { isStorageUnavailable } from '../../checkpoint/storage-unavailable.ts';
import type { JobContext, JobState } from './job-state.ts';

/**
 * Runs a step on the checkpoint storage (preparing it, reading the snapshot to deploy from), again
 * after the restart strategy's delay while the storage cannot be reached: a job recovered by a new
 * leader right after an outage of NATS meets a store still electing its stream leaders, a restart
 * may meet a file server that is away. A snapshot that is not there or does not fit, or a
 * strategy that says no more, fails as before. Resolves undefined once `state` is no longer the
 * job's (the caller then does nothing more).
 */
export async function whileStorageUnreachable<T>(ctx: JobContext, state: JobState, what: string, step: () => Promise<T>): Promise<T | undefined> {
  for (;;) {
    try {
      return await step();
    } catch (e) {
      if (!isStorageUnavailable(e) || !ctx.isCurrent(state)) throw e;
      const decision = ctx.restartStrategy.onFailure(ctx.clock.now());
      if (!decision.restart) throw e;
      ctx.log.warn(`${what}: the checkpoint storage cannot be reached; trying again in ${decision.delayMs} ms: ${(e as Error).message}`);
      await new Promise((r) => ctx.clock.schedule(() => r(undefined), decision.delayMs));
      if (!ctx.isCurrent(state)) return undefined;
    }
  }
}
