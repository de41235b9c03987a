import { waitUnlessChanged } from './wait-unless-changed.ts';

/**
 * The doorbell of a receiving thread: one shared int32 that the writers into all of the thread's
 * rings bump when its reader has said it has nothing to read, or for a priority event. The
 * thread then waits on one address and wakes once for any number of rings that got data, where
 * with a wait per ring each ring's notify woke it again (a notify to a parked thread costs
 * microseconds, and each wake is a task of its event loop).
 *
 * The protocol is the ring's (wait-unless-changed.ts): the waiter says it waits, then looks at
 * the counter once more; a ringer bumps the counter, then looks at the flag. Only the ringer that
 * finds the flag set notifies, and it clears the flag: several rings bumped while the thread
 * sleeps cost one notify.
 */

/** Int32 indices, each on a cache line of its own. */
const RUNG = 0; // bumped by every ring
const WAITING = 16; // the thread waits: a ring must notify
const NOTIFIES = 32; // notifies sent (a ring found the thread waiting): one per wake-up
const BYTES = 192;

export class Doorbell {
  readonly buffer: SharedArrayBuffer;
  readonly #cells: Int32Array;

  private constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.#cells = new Int32Array(buffer);
  }

  static create(): Doorbell {
    return new Doorbell(new SharedArrayBuffer(BYTES));
  }

  /** Another thread's view of a doorbell made by `create` (the buffer was posted to it). */
  static attach(buffer: SharedArrayBuffer): Doorbell {
    if (buffer.byteLength !== BYTES) throw new RangeError(`a doorbell is ${BYTES} bytes, not ${buffer.byteLength}`);
    return new Doorbell(buffer);
  }

  /** A writer's side: there is something to read; wakes the thread if it waits. */
  ring(): void {
    const c = this.#cells;
    Atomics.add(c, RUNG, 1);
    if (Atomics.load(c, WAITING) === 0) return;
    Atomics.store(c, WAITING, 0);
    Atomics.add(c, NOTIFIES, 1);
    Atomics.notify(c, RUNG);
  }

  /** The counter, to pass to `wait` after looking at every ring. */
  value(): number {
    return Atomics.load(this.#cells, RUNG);
  }

  /** Wake-ups sent so far (a ring found the thread waiting). */
  notifies(): number {
    return Atomics.load(this.#cells, NOTIFIES);
  }

  /**
   * Resolves once a ring after `seen` (a value() taken before the thread last looked at its
   * rings). Undefined when that happened already: the caller looks again at once.
   */
  wait(seen: number): Promise<unknown> | undefined {
    return waitUnlessChanged(this.#cells, RUNG, WAITING, seen);
  }
}
