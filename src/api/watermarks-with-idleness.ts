import type { WatermarkOutput } from './watermark.ts';
import type { WatermarkGenerator } from './watermark-generator.ts';

/**
 * Flink's WatermarksWithIdleness: a split without records for `idleTimeout` ms of processing
 * time is marked idle, so that it does not hold back the watermark of the task (or of the tasks
 * downstream); its next record makes it active again.
 */
export class WatermarksWithIdleness<T> implements WatermarkGenerator<T> {
  readonly #inner: WatermarkGenerator<T>;
  readonly #timer: IdlenessTimer;

  constructor(inner: WatermarkGenerator<T>, idleTimeout: number, now: () => number) {
    this.#inner = inner;
    this.#timer = new IdlenessTimer(idleTimeout, now);
  }

  onEvent(event: T, eventTimestamp: number, output: WatermarkOutput): void {
    this.#inner.onEvent(event, eventTimestamp, output);
    this.#timer.activity();
  }

  onPeriodicEmit(output: WatermarkOutput): void {
    if (this.#timer.checkIfIdle()) output.markIdle();
    else this.#inner.onPeriodicEmit(output);
  }
}

/**
 * Counts activity instead of reading the clock per record: a periodic check that sees no new
 * activity starts the idle period, a later one that still sees none after the timeout says idle.
 */
export class IdlenessTimer {
  readonly #timeout: number;
  readonly #now: () => number;
  #counter = 0;
  #lastCounter = 0;
  #idleSince = -1;

  constructor(timeout: number, now: () => number) {
    this.#timeout = timeout;
    this.#now = now;
  }

  activity(): void {
    this.#counter++;
  }

  checkIfIdle(): boolean {
    if (this.#counter !== this.#lastCounter) {
      this.#lastCounter = this.#counter;
      this.#idleSince = -1;
      return false;
    }
    if (this.#idleSince < 0) {
      this.#idleSince = this.#now();
      return false;
    }
    return this.#now() - this.#idleSince >= this.#timeout;
  }
}
