/** A finite or infinite bucket of records (Flink's Window). */
export abstract class Window {
  /** The largest timestamp that belongs to the window: results are emitted with it. */
  abstract maxTimestamp(): number;
}

/** [start, end) in event or processing time (Flink's TimeWindow). */
export class TimeWindow extends Window {
  readonly start: number;
  readonly end: number;
  /** Its windowKey, made once: a session window's operator asks for it several times per record. */
  #windowKey: string | undefined;

  constructor(start: number, end: number) {
    super();
    this.start = start;
    this.end = end;
  }

  /** Its name in window state and timers: `start:end`. */
  windowKey(): string {
    return (this.#windowKey ??= `${this.start}:${this.end}`);
  }

  /** The window a windowKey() names. */
  static ofWindowKey(key: string): TimeWindow {
    const colon = key.indexOf(':');
    const w = new TimeWindow(Number(key.slice(0, colon)), Number(key.slice(colon + 1)));
    w.#windowKey = key;
    return w;
  }

  getStart(): number {
    return this.start;
  }

  getEnd(): number {
    return this.end;
  }

  maxTimestamp(): number {
    return this.end - 1;
  }

  /** Whether the two overlap or touch (Flink's TimeWindow.intersects: sessions merge then). */
  intersects(other: TimeWindow): boolean {
    return this.start <= other.end && this.end >= other.start;
  }

  cover(other: TimeWindow): TimeWindow {
    return new TimeWindow(Math.min(this.start, other.start), Math.max(this.end, other.end));
  }

  equals(other: unknown): boolean {
    return other instanceof TimeWindow && other.start === this.start && other.end === this.end;
  }

  override toString(): string {
    return `TimeWindow{start=${this.start}, end=${this.end}}`;
  }

  /** The start of the window of `windowSize` (shifted by `offset`) that `timestamp` falls in (Flink's getWindowStartWithOffset). */
  static getWindowStartWithOffset(timestamp: number, offset: number, windowSize: number): number {
    const remainder = (timestamp - offset) % windowSize;
    // JavaScript's % keeps the dividend's sign: negative timestamps (before 1970) need the floor.
    return remainder < 0 ? timestamp - (remainder + windowSize) : timestamp - remainder;
  }
}

/** The one window of GlobalWindows: everything, for ever. */
export class GlobalWindow extends Window {
  static readonly INSTANCE = new GlobalWindow();
  private constructor() {
    super();
  }
  static get(): GlobalWindow {
    return GlobalWindow.INSTANCE;
  }
  maxTimestamp(): number {
    return Infinity;
  }
  override toString(): string {
    return 'GlobalWindow';
  }
}
