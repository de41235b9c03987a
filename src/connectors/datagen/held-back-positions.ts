/**
 * Records held back: a position whose `delay` is d > 0 is not emitted at its turn but after the
 * lane's positions up to position + d, as a source that delays some events (Nexmark's
 * `probDelayedEvent`) sends them late. Deterministic, so a lane's position alone is its state:
 * at step s (a position of the lane), first every held position with position + delay < s is
 * released, in order of (release, position), then s itself is emitted or held. What is held after
 * step s is recomputed from the positions in (s - maxDelay, s], which makes a restore exact.
 */
export interface HoldBack {
  /** Positions to hold a record back by (0: emitted at its turn). Deterministic per position. */
  readonly delay: (position: number) => number;
  /** An upper bound of `delay`. */
  readonly maxDelay: number;
}

export class HeldBackPositions {
  readonly #hold: HoldBack;
  readonly #lanes: number;
  /** Held positions ordered by (release, position); short: a fraction of maxDelay / lanes. */
  readonly #held: Array<{ readonly release: number; readonly position: number }> = [];

  /** The positions held before step `next` of a lane (lane = next % lanes): those of earlier steps not yet released. */
  constructor(hold: HoldBack, lane: number, lanes: number, next: number, end: number | null) {
    this.#hold = hold;
    this.#lanes = lanes;
    const lastStep = next - lanes;
    const last = end === null ? lastStep : Math.min(lastStep, end - 1);
    let first = Math.max(lane, last - hold.maxDelay);
    first += (((lane - first) % lanes) + lanes) % lanes; // onto the lane
    for (let p = first; p <= last; p += lanes) {
      const d = hold.delay(p);
      if (d > 0 && p + d >= lastStep) this.#insert(p + d, p);
    }
  }

  get size(): number {
    return this.#held.length;
  }

  /** Takes the next held position due at step `step`, or undefined. */
  takeDue(step: number): number | undefined {
    const head = this.#held[0];
    if (head === undefined || head.release >= step) return undefined;
    this.#held.shift();
    return head.position;
  }

  /** True when the record at `position` (this step's own) is held instead of emitted now. */
  holds(position: number): boolean {
    const d = this.#hold.delay(position);
    if (d <= 0) return false;
    this.#insert(position + d, position);
    return true;
  }

  #insert(release: number, position: number): void {
    const h = this.#held;
    let i = h.length;
    while (i > 0 && (h[i - 1]!.release > release || (h[i - 1]!.release === release && h[i - 1]!.position > position))) i--;
    h.splice(i, 0, { release, position });
  }
}
