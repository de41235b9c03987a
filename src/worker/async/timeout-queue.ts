import type { Clock, Timer } from '../../clock/clock.ts';

/**
 * The timeouts of an async operator's requests with one timer: every request gets the same
 * timeout when it is admitted, so deadlines come in order and the earliest is always the oldest.
 */
export class TimeoutQueue<T extends { readonly settled: boolean; timedOut(): void }> {
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  #deadlines: Array<{ readonly at: number; readonly request: T }> = [];
  #head = 0;
  #timer: Timer | undefined;

  constructor(clock: Clock, timeoutMs: number) {
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
  }

  add(request: T): void {
    this.#dropSettled();
    this.#deadlines.push({ at: this.#clock.now() + this.#timeoutMs, request });
    if (this.#timer === undefined) this.#arm();
  }

  /**
   * Lets go of the settled requests at the front. Without this a long timeout (seconds) kept every
   * request admitted since it was armed reachable (its entry, results and AbortController) until
   * the timer fired: all of them survived young-generation GCs and were promoted, and collecting
   * them took a large share of the thread. Requests settle about in the order they were admitted,
   * so the front is where the settled ones are.
   */
  #dropSettled(): void {
    const deadlines = this.#deadlines;
    while (this.#head < deadlines.length && deadlines[this.#head]!.request.settled) deadlines[this.#head++] = undefined!;
    if (this.#head > 64 && this.#head * 2 > deadlines.length) {
      this.#deadlines = deadlines.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Requests the queue still refers to (settled ones behind an unsettled one among them). */
  get held(): number {
    return this.#deadlines.length - this.#head;
  }

  /** No timeout fires any more. */
  clear(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#deadlines = [];
    this.#head = 0;
  }

  #arm(): void {
    // Settled requests at the front need no timer.
    while (this.#head < this.#deadlines.length && this.#deadlines[this.#head]!.request.settled) this.#head++;
    if (this.#head === this.#deadlines.length) {
      this.#deadlines = [];
      this.#head = 0;
      this.#timer = undefined;
      return;
    }
    const wait = Math.max(0, this.#deadlines[this.#head]!.at - this.#clock.now());
    this.#timer = this.#clock.schedule(() => this.#fire(), wait);
  }

  #fire(): void {
    const now = this.#clock.now();
    while (this.#head < this.#deadlines.length && this.#deadlines[this.#head]!.at <= now) {
      const { request } = this.#deadlines[this.#head++]!;
      if (!request.settled) request.timedOut();
    }
    if (this.#head > 1024 && this.#head * 2 > this.#deadlines.length) {
      this.#deadlines = this.#deadlines.slice(this.#head);
      this.#head = 0;
    }
    this.#arm();
  }
}
