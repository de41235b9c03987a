import type { Clock, Timer } from '../clock/clock.ts';
import type { Mailbox } from './mailbox.ts';

const MAX_TIMER_WAIT = 2 ** 31 - 1;

/** What an operator sees of its task's processing time. */
export interface ProcessingTimeProvider {
  now(): number;
  /** Runs `callback(time)` as mail once the clock has passed `time` (at once when it has). */
  registerTimer(time: number, description: string, callback: (time: number) => void): Timer;
}

/**
 * Processing time for a task's operators (Flink's ProcessingTimeService): callbacks at a point
 * of the task's clock, run as mail, so that they never run while a record is processed or a
 * snapshot is taken. Quiesced when the task ends: nothing scheduled runs after that.
 */
export class ProcessingTimeService implements ProcessingTimeProvider {
  readonly #clock: Clock;
  readonly #mailbox: Mailbox;
  readonly #pending = new Set<Timer>();
  #quiesced = false;

  constructor(clock: Clock, mailbox: Mailbox) {
    this.#clock = clock;
    this.#mailbox = mailbox;
  }

  now(): number {
    return this.#clock.now();
  }

  /**
   * Runs `callback(time)` as mail once the clock has passed `time` (at once when it has). Passed,
   * not reached, as Flink's (its delay is `time - now + 1`): a window's timer is at its last
   * millisecond, and a record read in that millisecond after the timer fired would open the
   * window again and have it fire twice. A Node timer can also fire a millisecond before the
   * wall clock says its delay is up: then it waits again.
   */
  registerTimer(time: number, description: string, callback: (time: number) => void): Timer {
    let current: Timer | undefined;
    let cancelled = false;
    const handle: Timer = {
      cancel: () => {
        cancelled = true;
        this.#pending.delete(handle);
        current?.cancel();
      },
    };
    const arm = (): void => {
      // Node's timers fire at once beyond 2^31 - 1 ms: a timer further away waits in steps.
      const wait = Math.min(MAX_TIMER_WAIT, Math.max(0, time + 1 - this.#clock.now()));
      current = this.#clock.schedule(() => {
        if (cancelled || this.#quiesced) return;
        if (this.#clock.now() <= time) return arm();
        this.#pending.delete(handle);
        this.#mailbox.put({ description, run: () => void (!cancelled && !this.#quiesced && callback(time)) });
      }, wait);
    };
    this.#pending.add(handle);
    arm();
    return handle;
  }

  /** The task is ending: pending callbacks are dropped (Flink does not fire them either). */
  quiesce(): void {
    this.#quiesced = true;
    for (const t of this.#pending) t.cancel();
    this.#pending.clear();
  }
}
