import type { SegmentLink } from './data-frames.ts';
import type { SegmentRing } from './segment-ring.ts';

/**
 * Moves one channel's segments from the ring its producer writes (in this TaskManager process) to
 * a connection to the process of its consumer, as the consumer's free segments allow: the receiver
 * grants a credit per free segment of its ring, each segment sent takes one, and a segment is
 * released here (a credit for the producer) once its bytes are handed to the socket. So a full
 * receiving ring stops this pump, which leaves the producer's ring full, which blocks the
 * producer: backpressure crosses hosts.
 *
 * A priority event (an unaligned barrier, or the order to convert an aligned one) goes at once:
 * the segments published before it are sent first, without credit (marked FORCED), and then the
 * event, so the receiving ring gets the event after exactly the segments it overtook, as a ring
 * between two threads would have them. The receiver keeps room for them (its ring is twice the
 * credit window).
 *
 * The pump runs in the process's main thread: it waits (Atomics) for a publish when it has sent
 * everything, and otherwise only for a priority event (credits come as frames).
 */
export class RingSender {
  readonly #ring: SegmentRing;
  readonly #link: SegmentLink;
  #credits = 0;
  /** Segments sent so far (wrapping as the ring's counters do). */
  #next = 0;
  #waiting = false;
  #stopped = false;
  #sentBytes = 0;

  constructor(ring: SegmentRing, link: SegmentLink) {
    this.#ring = ring;
    this.#link = link;
  }

  get credits(): number {
    return this.#credits;
  }

  get sentBytes(): number {
    return this.#sentBytes;
  }

  start(): void {
    this.#pump();
  }

  /** The receiver freed `n` segments. */
  credit(n: number): void {
    this.#credits += n;
    this.#pump();
  }

  /** The consumer's debloated budget: the producer keeps at most `segments` unsent here, each filled to `fillBytes`. */
  budget(segments: number, fillBytes: number): void {
    this.#ring.setBudget(segments, fillBytes);
  }

  /** Stops pumping (the channel is torn down, or its receiver has gone). */
  stop(): void {
    this.#stopped = true;
  }

  #pump(): void {
    const ring = this.#ring;
    for (;;) {
      if (this.#stopped) return;
      const seen = ring.signal();
      for (let p = ring.takePriority(); p !== undefined; p = ring.takePriority()) {
        while (((p.publishedBefore - this.#next) | 0) > 0) this.#sendNext(true);
        this.#link.priority(p.bytes);
      }
      while (this.#credits > 0 && ring.published() !== this.#next) {
        this.#sendNext(false);
        this.#credits--;
      }
      if (ring.published() === this.#next) {
        if (ring.closed) {
          this.#stopped = true;
          this.#link.close();
          return;
        }
        if (!ring.hungry(this.#next)) continue;
      } else if (ring.closed) {
        // Only credits can move it on now (a closed ring's waits end at once).
        return;
      }
      if (this.#waiting) return;
      const wait = ring.waitForData(seen);
      if (wait === undefined) continue;
      this.#waiting = true;
      void wait.then(() => {
        this.#waiting = false;
        this.#pump();
      });
      return;
    }
  }

  #sendNext(forced: boolean): void {
    const bytes = this.#ring.segment(this.#next);
    this.#link.segment(bytes, forced);
    this.#sentBytes += bytes.byteLength;
    this.#next = (this.#next + 1) | 0;
    this.#ring.release();
  }
}
