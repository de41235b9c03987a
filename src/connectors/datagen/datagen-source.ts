import type { InputStatus, Source, SourceOutput, SourceReader, SourceReaderContext, SplitEnumeratorContext } from '../../api/source.ts';
import { HeldBackPositions, type HoldBack } from './held-back-positions.ts';
import { WordGenerator } from './word-generator.ts';
import { TimedEventGenerator, type TimedEvent, type TimedEventOptions } from './timed-event-generator.ts';

/**
 * A split of generated records: positions lane, lane + lanes, lane + 2*lanes, ... below `end`.
 * `next` is the next position to emit, so a restored split resumes exactly where it stopped.
 */
export interface DataGenSplit {
  readonly lane: number;
  readonly lanes: number;
  readonly next: number;
  readonly end: number | null;
}

export interface DataGenOptions<T> {
  /** Records in all; unbounded when omitted. */
  readonly count?: number;
  /** Records per second over all readers; unlimited when omitted. */
  readonly ratePerSecond?: number;
  /** Makes the record at a position. Must be deterministic: the same position, the same record. */
  readonly generate: (position: number) => T;
  /** Records per pollNext. */
  readonly batch?: number;
  /**
   * Each record's event-time timestamp in ms (deterministic, like `generate`): records carry it,
   * a WatermarkStrategy given to fromSource makes watermarks from it per lane (split), and its
   * timestamp assigner, if any, gets it as the record timestamp.
   */
  readonly eventTime?: (position: number) => number;
  /** Some records held back and sent late (see HeldBackPositions); all in order when omitted. */
  readonly holdBack?: HoldBack;
}

/** A split being read: with the positions it holds back, which its `next` alone determines. */
interface LaneState {
  readonly lane: number;
  readonly lanes: number;
  next: number;
  readonly end: number | null;
  readonly held: HeldBackPositions | undefined;
}

export class DataGenSource<T> implements Source<T, DataGenSplit> {
  readonly boundedness;
  readonly #o: DataGenOptions<T>;

  constructor(options: DataGenOptions<T>) {
    if (options.count !== undefined && (!Number.isInteger(options.count) || options.count < 0)) {
      throw new TypeError(`datagen count must be a whole number >= 0, got ${options.count}`);
    }
    this.#o = options;
    this.boundedness = options.count === undefined ? ('unbounded' as const) : ('bounded' as const);
  }

  createSplits(ctx: SplitEnumeratorContext): DataGenSplit[] {
    const lanes = ctx.parallelism;
    return Array.from({ length: lanes }, (_, lane) => ({ lane, lanes, next: lane, end: this.#o.count ?? null }));
  }

  createReader(ctx: SourceReaderContext): SourceReader<T, DataGenSplit> {
    return new DataGenReader(this.#o, ctx.parallelism);
  }
}

class DataGenReader<T> implements SourceReader<T, DataGenSplit> {
  readonly #o: DataGenOptions<T>;
  readonly #splits: LaneState[] = [];
  readonly #batch: number;
  readonly #perReaderRate: number | undefined;
  #noMore = false;
  /** Lanes paused by watermark alignment. */
  readonly #paused = new Set<number>();
  #resumed: (() => void) | undefined;
  #current = 0;
  #rateStart = 0;
  #emittedSinceStart = 0;

  constructor(options: DataGenOptions<T>, parallelism: number) {
    this.#o = options;
    this.#batch = options.batch ?? 256;
    this.#perReaderRate = options.ratePerSecond === undefined ? undefined : options.ratePerSecond / parallelism;
  }

  addSplits(splits: DataGenSplit[]): void {
    const hold = this.#o.holdBack;
    for (const s of splits) this.#splits.push({ ...s, held: hold ? new HeldBackPositions(hold, s.lane, s.lanes, s.next, s.end) : undefined });
  }

  notifyNoMoreSplits(): void {
    this.#noMore = true;
  }

  pollNext(output: SourceOutput<T>): InputStatus {
    const allowed = this.#allowance();
    if (allowed === 0) return 'nothing';
    let emitted = 0;
    const generate = this.#o.generate;
    const eventTime = this.#o.eventTime;
    while (emitted < allowed) {
      const split = this.#pickSplit();
      if (!split) {
        if (emitted > 0) break;
        // Lanes paused by watermark alignment still have records to come.
        return this.#noMore && !this.#splits.some(hasMore) ? 'end' : 'nothing';
      }
      const stop = split.end === null ? Infinity : split.end;
      // Each lane is a split with watermarks of its own.
      const out = output.createOutputForSplit?.(laneId(split.lane)) ?? output;
      if (split.held) {
        emitted += this.#emitSteps(split, split.held, out, allowed - emitted);
      } else if (eventTime === undefined) {
        while (emitted < allowed && split.next < stop) {
          out.collect(generate(split.next));
          split.next += split.lanes;
          emitted++;
        }
      } else {
        while (emitted < allowed && split.next < stop) {
          out.collect(generate(split.next), eventTime(split.next));
          split.next += split.lanes;
          emitted++;
        }
      }
      if (!hasMore(split)) output.releaseOutputForSplit?.(laneId(split.lane));
    }
    this.#emittedSinceStart += emitted;
    return 'more';
  }

  /** Whole steps of a lane that holds records back (a checkpoint falls between steps only). */
  #emitSteps(split: LaneState, held: HeldBackPositions, out: SourceOutput<T>, allowed: number): number {
    const { generate, eventTime } = this.#o;
    const emit = (p: number) => (eventTime === undefined ? out.collect(generate(p)) : out.collect(generate(p), eventTime(p)));
    const stop = split.end === null ? Infinity : split.end;
    let emitted = 0;
    while (emitted < allowed && hasMore(split)) {
      const step = split.next;
      for (let p = held.takeDue(step); p !== undefined; p = held.takeDue(step)) {
        emit(p);
        emitted++;
      }
      if (step < stop && !held.holds(step)) {
        emit(step);
        emitted++;
      }
      split.next += split.lanes;
    }
    return emitted;
  }

  #pickSplit() {
    for (let i = 0; i < this.#splits.length; i++) {
      const s = this.#splits[(this.#current + i) % this.#splits.length]!;
      if (hasMore(s) && !this.#paused.has(s.lane)) {
        this.#current = (this.#current + i + 1) % this.#splits.length;
        return s;
      }
    }
    return undefined;
  }

  #allowance(): number {
    if (this.#perReaderRate === undefined) return this.#batch;
    const now = performance.now();
    if (this.#rateStart === 0) this.#rateStart = now;
    const due = Math.floor(((now - this.#rateStart) / 1000) * this.#perReaderRate) - this.#emittedSinceStart;
    return Math.max(0, Math.min(this.#batch, due));
  }

  pauseOrResumeSplits(toPause: readonly string[], toResume: readonly string[]): void {
    for (const id of toPause) this.#paused.add(laneOf(id));
    for (const id of toResume) this.#paused.delete(laneOf(id));
    if (toResume.length > 0) {
      // The rate counts from now: records not read while paused are not due in a burst.
      this.#rateStart = 0;
      this.#emittedSinceStart = 0;
      const wake = this.#resumed;
      this.#resumed = undefined;
      wake?.();
    }
  }

  isAvailable(): Promise<void> {
    // Every lane with records left is paused: nothing until one is resumed.
    if (this.#paused.size > 0 && this.#pickSplit() === undefined && this.#splits.some(hasMore)) {
      return new Promise((resolve) => (this.#resumed = resolve));
    }
    const waitMs = this.#perReaderRate === undefined ? 1 : Math.max(1, Math.ceil(1000 / this.#perReaderRate));
    return new Promise((resolve) => setTimeout(resolve, waitMs));
  }

  snapshotState(): DataGenSplit[] {
    return this.#splits.map(({ lane, lanes, next, end }) => ({ lane, lanes, next, end }));
  }

  describeActivity(): string {
    const positions = this.#splits.map((s) => `lane ${s.lane} at ${s.next}${this.#paused.has(s.lane) ? ' (paused by watermark alignment)' : ''}`).join(', ');
    return `generating records (${positions})`;
  }
}

/** Records left: positions below the end, or held back ones not yet sent. */
function hasMore(s: LaneState): boolean {
  return s.end === null || s.next < s.end || (s.held !== undefined && s.held.size > 0);
}

const laneId = (lane: number): string => `lane-${lane}`;
const laneOf = (id: string): number => Number(id.slice('lane-'.length));

/** Ready-made generators. */
export const DataGen = {
  /** Words with Zipf-like frequencies, deterministic per (seed, position). */
  words(options: { seed?: number; count?: number; ratePerSecond?: number; vocabulary?: number } = {}): DataGenSource<string> {
    const gen = new WordGenerator(options.seed ?? 7, options.vocabulary);
    return new DataGenSource({
      generate: (i) => gen.wordAt(i),
      ...(options.count !== undefined ? { count: options.count } : {}),
      ...(options.ratePerSecond !== undefined ? { ratePerSecond: options.ratePerSecond } : {}),
    });
  },
  /**
   * The numbers from, from+1, ... up to and including to (to - from + 1 of them; none when to < from),
   * as Flink's `fromSequence(from, to)`.
   */
  sequence(from: number, to: number): DataGenSource<number> {
    return new DataGenSource({ generate: (i) => from + i, count: Math.max(0, to - from + 1) });
  },
  /**
   * Keyed events `{ key, value, timestamp }` with event times (the records carry them): give the
   * source a WatermarkStrategy, e.g. forBoundedOutOfOrderness(maxOutOfOrderness), for windows.
   */
  events(options: TimedEventOptions & { count?: number; ratePerSecond?: number } = {}): DataGenSource<TimedEvent> {
    const gen = new TimedEventGenerator(options);
    return new DataGenSource({
      generate: (i) => gen.eventAt(i),
      eventTime: (i) => gen.timestampAt(i),
      ...(options.count !== undefined ? { count: options.count } : {}),
      ...(options.ratePerSecond !== undefined ? { ratePerSecond: options.ratePerSecond } : {}),
    });
  },
  of<T>(generate: (position: number) => T, options: Omit<DataGenOptions<T>, 'generate'> = {}): DataGenSource<T> {
    return new DataGenSource({ ...options, generate });
  },
};
