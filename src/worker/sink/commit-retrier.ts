import type { Committer, CommitRetryPolicy } from '../../api/two-phase-committing-sink.ts';
import type { Clock, Timer } from '../../clock/clock.ts';
import { CommitFailedError } from './commit-failed-error.ts';

/** Which checkpoint's committables a commit makes visible ('restored': those a restore found). */
export type CommitOrigin = number | 'restored';

export interface CommitRetrierSetup<C> {
  readonly committer: Committer<C>;
  readonly clock: Clock;
  readonly policy: CommitRetryPolicy;
  /** Named in errors when the committer names no target of its own. */
  readonly defaultTarget: string;
  readonly onRetry?: (origin: CommitOrigin, attempt: number, delayMs: number, error: unknown) => void;
}

/**
 * Commits with retries (Flink's sink2 CommitRetrier): a failed commit is tried again after a
 * backoff that doubles up to a bound, since commits are idempotent and a target that restarts
 * comes back; one the committer marks unrecoverable, or one that fails `maxAttempts` times,
 * rejects with a CommitFailedError naming target and committable.
 */
export class CommitRetrier<C> {
  readonly #s: CommitRetrierSetup<C>;
  readonly #timers = new Set<Timer>();
  #closed = false;

  constructor(setup: CommitRetrierSetup<C>) {
    this.#s = setup;
  }

  get target(): string {
    return this.#s.committer.target ?? this.#s.defaultTarget;
  }

  /** Settles once committed or failed for good; after close() a retry never comes and the promise stays pending. */
  commit(origin: CommitOrigin, committables: readonly C[]): Promise<void> {
    return new Promise((resolve, reject) => this.#attempt(origin, committables, 1, resolve, reject));
  }

  /** Pending retries are dropped (the task is ending; a restore commits again). */
  close(): void {
    this.#closed = true;
    for (const t of this.#timers) t.cancel();
    this.#timers.clear();
  }

  #attempt(origin: CommitOrigin, committables: readonly C[], attempt: number, resolve: () => void, reject: (e: unknown) => void): void {
    if (this.#closed) return;
    Promise.resolve()
      .then(() => this.#s.committer.commit(committables))
      .then(resolve, (e: unknown) => {
        const failed = (e as { committable?: unknown } | null)?.committable ?? (committables.length === 1 ? committables[0] : committables);
        if ((e as { unrecoverable?: unknown } | null)?.unrecoverable === true) {
          reject(new CommitFailedError('COMMIT_REFUSED', this.target, origin, failed, attempt, e));
          return;
        }
        if (attempt >= this.#s.policy.maxAttempts) {
          reject(new CommitFailedError('COMMIT_RETRIES_EXHAUSTED', this.target, origin, failed, attempt, e));
          return;
        }
        const delayMs = backoffMs(this.#s.policy, attempt);
        this.#s.onRetry?.(origin, attempt, delayMs, e);
        const timer = this.#s.clock.schedule(() => {
          this.#timers.delete(timer);
          this.#attempt(origin, committables, attempt + 1, resolve, reject);
        }, delayMs);
        this.#timers.add(timer);
      });
  }
}

/** The delay after failed attempt number `attempt` (from 1). */
export function backoffMs(policy: CommitRetryPolicy, attempt: number): number {
  return Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (attempt - 1));
}
