import type { Doorbell } from './doorbell.ts';

/** The reading end of one ring as the doorbell's waiter drives it. */
export interface DoorbellReader {
  /** Takes what the ring has for the channel now; false once the channel is closed (it is then dropped). */
  poll(): boolean;
}

/**
 * Waits on a receiving thread's doorbell and, each time it rings, polls every reader of the
 * thread's rings: one wake-up for the thread, however many rings got data meanwhile. A reader is
 * polled when it is added, so what its ring got before it is not left waiting for a ring.
 */
export class DoorbellWaiter {
  readonly #bell: Doorbell;
  readonly #readers = new Set<DoorbellReader>();
  #waiting = false;
  /** Times the thread looked at its rings after waiting (for tests and figures). */
  wakeUps = 0;

  constructor(bell: Doorbell) {
    this.#bell = bell;
  }

  add(reader: DoorbellReader): void {
    this.#readers.add(reader);
    this.#run();
  }

  get readers(): number {
    return this.#readers.size;
  }

  #run(): void {
    for (;;) {
      const seen = this.#bell.value();
      for (const r of this.#readers) if (!r.poll()) this.#readers.delete(r);
      // With no reader left nothing is waited for: a closed ring's last ring finds nobody.
      if (this.#readers.size === 0 || this.#waiting) return;
      const wait = this.#bell.wait(seen);
      if (wait === undefined) continue;
      this.#waiting = true;
      void wait.then(() => {
        this.#waiting = false;
        this.wakeUps++;
        this.#run();
      });
      return;
    }
  }
}
