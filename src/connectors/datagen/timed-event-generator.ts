import { hashPosition } from './word-generator.ts';
/** A generated event: a key, a small value and its event time. */
export interface TimedEvent {
  readonly key: string;
  readonly value: number;
  /** Event time in ms. */
  readonly timestamp: number;
}

export interface TimedEventOptions {
  readonly seed?: number;
  /** Distinct keys (default 100). */
  readonly keys?: number;
  /** Event time of position 0 (default 1,700,000,000,000: November 2023). */
  readonly start?: number;
  /** Positions per second of event time (default 1000): position i is due at start + i * 1000 / eventsPerSecond. */
  readonly eventsPerSecond?: number;
  /**
   * Each event's timestamp is up to this many ms before its due time (default 0), seeded per
   * position: within one split no event is more than this late behind one before it, so
   * forBoundedOutOfOrderness(maxOutOfOrderness) never finds one late.
   */
  readonly maxOutOfOrderness?: number;
}

/** Deterministic, out-of-order timed events by position: the same position, the same event. */
export class TimedEventGenerator {
  readonly #seed: number;
  readonly #keys: readonly string[];
  readonly #start: number;
  readonly #msPerEvent: number;
  readonly #jitter: number;

  constructor(options: TimedEventOptions = {}) {
    const keys = options.keys ?? 100;
    if (!Number.isInteger(keys) || keys < 1) throw new TypeError(`timed events: keys must be a whole number >= 1, got ${keys}`);
    const rate = options.eventsPerSecond ?? 1000;
    if (!(rate > 0)) throw new TypeError(`timed events: eventsPerSecond must be > 0, got ${rate}`);
    const jitter = options.maxOutOfOrderness ?? 0;
    if (!(jitter >= 0)) throw new TypeError(`timed events: maxOutOfOrderness must be >= 0, got ${jitter}`);
    this.#seed = options.seed ?? 7;
    this.#keys = Array.from({ length: keys }, (_, i) => `key-${i}`);
    this.#start = options.start ?? 1_700_000_000_000;
    this.#msPerEvent = 1000 / rate;
    this.#jitter = Math.floor(jitter);
  }

  timestampAt(position: number): number {
    const due = this.#start + Math.floor(position * this.#msPerEvent);
    return this.#jitter === 0 ? due : due - (hashPosition(this.#seed ^ 0x5bd1e995, position) % (this.#jitter + 1));
  }

  eventAt(position: number): TimedEvent {
    const h = hashPosition(this.#seed, position);
    return { key: this.#keys[h % this.#keys.length]!, value: (h >>> 8) % 100, timestamp: this.timestampAt(position) };
  }
}

