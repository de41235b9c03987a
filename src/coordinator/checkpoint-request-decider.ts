import type { WeirConfig } from '../config/configuration.ts';

/**
 * When the next periodic checkpoint may be triggered (Flink's CheckpointRequestDecider): one
 * interval after the last trigger, not before the minimum pause after the last completion, not
 * while max-concurrent-checkpoints are in flight, and at the backlog interval while a source
 * reports a backlog (none at all when that interval is 0).
 */
export class CheckpointRequestDecider {
  readonly #interval: number | null;
  readonly #duringBacklog: number | null;
  readonly #minPause: number;
  readonly #maxConcurrent: number;

  constructor(config: WeirConfig) {
    this.#interval = config['execution.checkpointing.interval'];
    this.#duringBacklog = config['execution.checkpointing.interval-during-backlog'];
    this.#minPause = config['execution.checkpointing.min-pause'];
    this.#maxConcurrent = config['execution.checkpointing.max-concurrent-checkpoints'];
  }

  /** The time (ms) the next periodic trigger is due at, or null when none is due. */
  nextTriggerAt(s: { readonly now: number; readonly lastTrigger: number; readonly lastCompletion: number; readonly backlog: boolean }): number | null {
    const interval = s.backlog && this.#duringBacklog !== null ? (this.#duringBacklog === 0 ? null : this.#duringBacklog) : this.#interval;
    if (interval === null) return null;
    return Math.max(s.lastTrigger + interval, s.lastCompletion + this.#minPause, s.now);
  }

  /** Whether a periodic trigger may go out with this many checkpoints in flight. */
  admits(pending: number): boolean {
    return pending < this.#maxConcurrent;
  }
}
