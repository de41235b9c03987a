import type { Clock, Timer } from '../clock/clock.ts';

export interface HeartbeatOptions {
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly send: (seq: number) => void;
  /** No answer for timeoutMs: called once, after which the monitor is stopped. */
  readonly onTimeout: (silentMs: number) => void;
}

/**
 * The JobMaster's side of one TaskManager's heartbeat (Flink's HeartbeatManager, one target):
 * a request every interval; a target that has answered none for the timeout is declared lost.
 * Answers come from the TaskManager's event loop, so a thread blocked in user code stops them.
 */
export class HeartbeatMonitor {
  readonly #o: HeartbeatOptions;
  #lastHeard = 0;
  #seq = 0;
  #timer: Timer | undefined;
  #stopped = false;

  constructor(options: HeartbeatOptions) {
    this.#o = options;
  }

  start(): void {
    this.#lastHeard = this.#o.clock.now();
    this.#tick();
  }

  received(): void {
    this.#lastHeard = this.#o.clock.now();
  }

  /** Milliseconds since the last answer. */
  get silentMs(): number {
    return this.#o.clock.now() - this.#lastHeard;
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
  }

  #tick(): void {
    if (this.#stopped) return;
    const silent = this.silentMs;
    if (silent >= this.#o.timeoutMs) {
      this.stop();
      this.#o.onTimeout(silent);
      return;
    }
    this.#o.send(++this.#seq);
    // Wake at the next interval, or exactly when the timeout would pass if that is sooner.
    this.#timer = this.#o.clock.schedule(() => this.#tick(), Math.min(this.#o.intervalMs, this.#o.timeoutMs - silent));
  }
}
