import type { CreditLink } from './data-frames.ts';
import { SEGMENT_HEADER, type SegmentRing } from './segment-ring.ts';

type Arrival = { readonly kind: 'segment'; readonly bytes: Uint8Array; readonly forced: boolean } | { readonly kind: 'priority'; readonly bytes: Uint8Array } | { readonly kind: 'close' };

const PRIORITY_RETRY_MS = 1;

/**
 * Puts one channel's segments, as they arrive from the producer's process, into the ring its
 * consumer reads (in this process), and grants the sender a credit for every segment the
 * consumer frees. The ring has room for the credit window and as many segments again: those a
 * priority event brings ahead of itself without credit (see RingSender), which give no credit
 * back when freed. Arrivals go into the ring strictly in order; one that finds no room (a second
 * priority event before the consumer took the first's) waits here, and what comes after it too.
 *
 * Buffer debloating across processes: the consumer sets its ring's budget as for a ring between
 * threads; here the credits outstanding (granted, not yet given back by a freed segment) are kept
 * within that budget's segments, and the budget goes to the sender, whose producer then fills its
 * segments only to the budget's bytes and keeps only that many unsent.
 */
export class RingReceiver {
  readonly #ring: SegmentRing;
  readonly #window: number;
  #link: CreditLink | undefined;
  readonly #backlog: Arrival[] = [];
  /** Whether each published, not yet released segment came without credit, by segment number. */
  readonly #forced: boolean[];
  #published = 0;
  #released = 0;
  /** Credits granted, and those given back by freed segments sent with credit. */
  #granted = 0;
  #returned = 0;
  /** The budget the sender was last told of (segments, fill bytes): numbers, as this runs on every release. */
  #sentSegments: number;
  #sentFill: number;
  #waiting = false;
  #retryTimer: NodeJS.Timeout | undefined;
  #stopped = false;

  /** `window`: the credits the sender starts with; the ring must hold twice as many segments. */
  constructor(ring: SegmentRing, window: number) {
    if (ring.segments < 2 * window) throw new RangeError(`a receiving ring needs ${2 * window} segments for a window of ${window}, it has ${ring.segments}`);
    this.#ring = ring;
    this.#window = window;
    this.#forced = new Array<boolean>(ring.segments).fill(false);
    // What the sender assumes until told: the ring undebloated. A budget its consumer set before
    // the sender attached (debloating's first, before any measurement) is told at attach.
    this.#sentSegments = ring.segments;
    this.#sentFill = ring.segmentSize - SEGMENT_HEADER;
  }

  /** The sender is known: it gets the window (or the debloated budget), then a credit per freed segment. */
  attach(link: CreditLink): void {
    this.#link = link;
    this.#grant();
    this.#watchReleases();
  }

  segment(bytes: Uint8Array, forced: boolean): void {
    if (bytes.byteLength > this.#ring.segmentSize - 4) throw new RangeError(`a segment of ${bytes.byteLength} bytes does not fit this channel's segments of ${this.#ring.segmentSize}`);
    this.#arrive({ kind: 'segment', bytes, forced });
  }

  priority(bytes: Uint8Array): void {
    this.#arrive({ kind: 'priority', bytes });
  }

  /** The sender has sent everything and closed its end (a CLOSE frame): an arrival, not this receiver's own end. */
  senderClosed(): void {
    this.#arrive({ kind: 'close' });
  }

  /** Tears the channel down on this side (the sender is told by the caller). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#ring.close();
  }

  #arrive(a: Arrival): void {
    if (this.#stopped) return;
    this.#backlog.push(a);
    if (this.#backlog.length === 1) this.#apply();
  }

  /** Puts arrivals into the ring while there is room, in order. */
  #apply(): void {
    const ring = this.#ring;
    while (this.#backlog.length > 0 && !this.#stopped) {
      const a = this.#backlog[0]!;
      if (a.kind === 'segment') {
        if (ring.freeSegments() === 0) return; // a release brings #watchReleases back here
        ring.nextSegment().set(a.bytes);
        this.#forced[this.#published & (ring.segments - 1)] = a.forced;
        ring.publish(a.bytes.byteLength);
        this.#published = (this.#published + 1) | 0;
      } else if (a.kind === 'priority') {
        if (!ring.priorityFree()) {
          this.#retryTimer ??= setTimeout(() => {
            this.#retryTimer = undefined;
            this.#apply();
          }, PRIORITY_RETRY_MS);
          return;
        }
        ring.publishPriority(a.bytes);
      } else {
        this.#stopped = true;
        ring.close();
      }
      this.#backlog.shift();
    }
  }

  /** Tops the outstanding credits up to the window, or to the consumer's smaller budget, which the sender is told of. */
  #grant(): void {
    const link = this.#link!;
    const budget = this.#ring.budget();
    if (budget.segments !== this.#sentSegments || budget.fillBytes !== this.#sentFill) {
      this.#sentSegments = budget.segments;
      this.#sentFill = budget.fillBytes;
      link.budget(Math.min(this.#window, budget.segments), budget.fillBytes);
    }
    const due = Math.min(this.#window, budget.segments) - (this.#granted - this.#returned);
    if (due > 0) {
      this.#granted += due;
      link.credit(due);
    }
  }

  /** Waits (Atomics) for the consumer to free segments: each one sent with credit is a credit back. */
  #watchReleases(): void {
    const ring = this.#ring;
    for (;;) {
      if (this.#stopped || !this.#link) return;
      const seen = ring.creditSignal();
      const released = (ring.published() - (ring.segments - ring.freeSegments())) | 0;
      while (this.#released !== released) {
        if (!this.#forced[this.#released & (ring.segments - 1)]) this.#returned++;
        this.#released = (this.#released + 1) | 0;
      }
      this.#grant();
      if (this.#backlog.length > 0) this.#apply();
      // Closed by its consumer (the subtask ended): a closed ring's waits end at once, so none is begun.
      if (this.#waiting || ring.closed) return;
      const wait = ring.waitForCredit(seen);
      if (wait === undefined) continue;
      this.#waiting = true;
      void wait.then(() => {
        this.#waiting = false;
        this.#watchReleases();
      });
      return;
    }
  }
}
