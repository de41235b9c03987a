import type { Clock, Timer } from '../clock/clock.ts';
import type { CheckpointRequestDecider } from './checkpoint-request-decider.ts';

/**
 * The timer of periodic checkpoints: armed for when the decider says the next one is due (the
 * interval, the minimum pause after the last completion, the interval during a source's backlog),
 * and fired only if the decider admits one more in flight.
 */
export class PeriodicTrigger {
  readonly #clock: Clock;
  readonly #decider: CheckpointRequestDecider;
  readonly #fire: () => void;
  /** Sources (by vertex id) catching up on a backlog, as their split enumerators say (FLIP-309). */
  readonly #backlog = new Set<string>();
  #timer: Timer | undefined;

  constructor(clock: Clock, decider: CheckpointRequestDecider, fire: () => void) {
    this.#clock = clock;
    this.#decider = decider;
    this.#fire = fire;
  }

  setBacklog(sourceVertexId: string, backlog: boolean): void {
    if (backlog) this.#backlog.add(sourceVertexId);
    else this.#backlog.delete(sourceVertexId);
  }

  arm(times: { readonly lastTrigger: number; readonly lastCompletion: number; readonly inFlight: () => number }): void {
    this.cancel();
    const now = this.#clock.now();
    const at = this.#decider.nextTriggerAt({ now, lastTrigger: times.lastTrigger, lastCompletion: times.lastCompletion, backlog: this.#backlog.size > 0 });
    if (at === null) return;
    this.#timer = this.#clock.schedule(() => {
      this.#timer = undefined;
      if (this.#decider.admits(times.inFlight())) this.#fire();
    }, at - now);
  }

  cancel(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }
}
