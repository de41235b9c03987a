import type { SourceOutput } from '../api/source.ts';
import { MAX_WATERMARK, MIN_WATERMARK, watermarkValue, type Watermark, type WatermarkOutput } from '../api/watermark.ts';
import type { WatermarkGenerator } from '../api/watermark-generator.ts';
import type { TimestampAssigner, WatermarkStrategy } from '../api/watermark-strategy.ts';
import { NO_TIMESTAMP, type RecordTimestamp } from '../network/record-timestamp.ts';
import { InvalidTimestampError } from './invalid-timestamp-error.ts';
import type { EventTimeOutput, Output } from './operators/stream-operator.ts';

/** One split's (or the whole reader's) generator and where it stands. */
interface SplitState {
  readonly id: string;
  readonly generator: WatermarkGenerator<unknown> | undefined;
  readonly output: WatermarkOutput;
  watermark: number;
  idle: boolean;
  /** Paused by watermark alignment. */
  paused: boolean;
}

export interface SourceWatermarksSetup {
  readonly strategy: WatermarkStrategy<unknown> | undefined;
  readonly time: RecordTimestamp;
  /** Where records go (the chain after the source). */
  readonly records: Output;
  readonly eventTime: EventTimeOutput;
  /** Where a side output's records go (getSideOutput of the source); undefined: nothing consumes it. */
  readonly sideOutput: (tagId: string) => Output | undefined;
  readonly now: () => number;
  /** Named in an InvalidTimestampError. */
  readonly operator: string;
  readonly uid: string;
}

const MAIN = '';

/**
 * Timestamps and watermarks of a source task (Flink's ProgressiveTimestampsAndWatermarks with its
 * WatermarkOutputMultiplexer): each split output the reader makes has its own generator; the
 * task's watermark is the minimum over the splits that are not idle, and goes downstream only
 * when it advances. A reader that makes no split outputs is one stream (its main output). When
 * every split is idle the task says so downstream, and says it is active again before its next
 * watermark.
 */
export class SourceWatermarks {
  readonly #s: SourceWatermarksSetup;
  readonly #assigner: TimestampAssigner<unknown> | undefined;
  readonly #splits = new Map<string, SplitState>();
  /** The outputs handed to the reader for its splits: the same one for the same split. */
  readonly #splitOutputs = new Map<string, SourceOutput<unknown>>();
  readonly #main: SplitState;
  readonly #mainOutput: SourceOutput<unknown>;
  #emitted = MIN_WATERMARK;
  /** Records the reader emitted. */
  records = 0;
  #idle = false;
  #finished = false;
  /** Whether the reader emitted through its main output (not only through split outputs). */
  #mainUsed = false;

  constructor(setup: SourceWatermarksSetup) {
    this.#s = setup;
    this.#assigner = setup.strategy?.timestampAssigner;
    this.#main = this.#state(MAIN);
    const main = this.#main;
    // Without a strategy a record only keeps the timestamp its source gave it: the short way.
    const plain = setup.strategy === undefined;
    const recordsOf = (state: SplitState): SourceOutput<unknown> => ({
      collect: plain ? (value, timestamp) => this.#collectPlain(value, timestamp) : (value, timestamp) => this.#collect(state, value, timestamp),
      emitWatermark: (wm) => state.output.emitWatermark(wm),
      markIdle: () => state.output.markIdle(),
      markActive: () => state.output.markActive(),
      output: (tag, value, timestamp) => this.#collectSide(tag.id, value, timestamp),
    });
    this.#mainOutput = {
      ...recordsOf(main),
      createOutputForSplit: (splitId: string) => {
        const id = String(splitId);
        let output = this.#splitOutputs.get(id);
        if (output === undefined) {
          const state = this.#state(id);
          this.#splits.set(id, state);
          output = recordsOf(state);
          this.#splitOutputs.set(id, output);
        }
        return output;
      },
      releaseOutputForSplit: (splitId: string) => {
        const id = String(splitId);
        this.#splits.delete(id);
        this.#splitOutputs.delete(id);
        this.#combine();
      },
    };
  }

  /** What the reader's pollNext is given. */
  get readerOutput(): SourceOutput<unknown> {
    return this.#mainOutput;
  }

  /** The watermark sent downstream last. */
  get watermark(): number {
    return this.#emitted;
  }

  /** Whether the strategy makes watermarks at all (periodic emission is needed). */
  get generates(): boolean {
    return this.#s.strategy?.hasWatermarks === true;
  }

  /** Every `pipeline.auto-watermark-interval`: each generator may emit. */
  emitPeriodic(): void {
    if (this.#finished) return;
    for (const state of this.#participants()) state.generator?.onPeriodicEmit(state.output);
  }

  /** The end of input: the end of event time goes downstream, and nothing after it. */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#emit(MAX_WATERMARK);
  }

  /**
   * Where this reader stands for watermark alignment: the minimum over its splits that are not
   * idle (Infinity when all are idle or it has finished, so it holds no one back).
   */
  alignmentWatermark(): number {
    if (this.#finished) return MAX_WATERMARK;
    let min = Infinity;
    for (const s of this.#participants()) {
      // A reader between splits (or before its first) has nothing to hold the others back with.
      if (s === this.#main && !this.#mainUsed) continue;
      if (!s.idle && s.watermark < min) min = s.watermark;
    }
    return min;
  }

  /** The splits (ids) whose own watermark is beyond `maxAllowed`, and those paused that are no longer. */
  alignmentChanges(maxAllowed: number): { pause: string[]; resume: string[] } {
    const pause: string[] = [];
    const resume: string[] = [];
    for (const s of this.#splits.values()) {
      if (!s.paused && s.watermark > maxAllowed) {
        s.paused = true;
        pause.push(s.id);
      } else if (s.paused && s.watermark <= maxAllowed) {
        s.paused = false;
        resume.push(s.id);
      }
    }
    return { pause, resume };
  }

  #participants(): Iterable<SplitState> {
    return this.#splits.size > 0 ? this.#splits.values() : [this.#main];
  }

  #state(id: string): SplitState {
    const strategy = this.#s.strategy;
    const generator = strategy?.createWatermarkGenerator({ currentProcessingTime: this.#s.now });
    const state: SplitState = {
      id,
      generator,
      watermark: MIN_WATERMARK,
      idle: false,
      paused: false,
      output: {
        emitWatermark: (wm: Watermark | number) => {
          const value = watermarkValue(wm);
          const wasIdle = state.idle;
          state.idle = false;
          if (value > state.watermark) state.watermark = value;
          else if (!wasIdle) return;
          this.#combine();
        },
        markIdle: () => {
          if (state.idle) return;
          state.idle = true;
          this.#combine();
        },
        markActive: () => {
          if (!state.idle) return;
          state.idle = false;
          this.#combine();
        },
      },
    };
    return state;
  }

  #collectPlain(value: unknown, timestamp: number | undefined): void {
    this.records++;
    const time = this.#s.time;
    if (timestamp === undefined) {
      time.current = NO_TIMESTAMP;
    } else {
      if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) throw new InvalidTimestampError(this.#s.operator, this.#s.uid, timestamp, value, 'source');
      time.current = timestamp;
    }
    this.#s.records.collect(value);
  }

  /** A side record keeps the timestamp its source gave it and moves no watermark. */
  #collectSide(tagId: string, value: unknown, timestamp: number | undefined): void {
    const target = this.#s.sideOutput(tagId);
    if (target === undefined) return;
    if (timestamp !== undefined && (typeof timestamp !== 'number' || !Number.isFinite(timestamp))) throw new InvalidTimestampError(this.#s.operator, this.#s.uid, timestamp, value, 'source');
    this.#s.time.current = timestamp ?? NO_TIMESTAMP;
    target.collect(value);
  }

  #collect(state: SplitState, value: unknown, recordTimestamp: number | undefined): void {
    const s = this.#s;
    this.records++;
    if (state === this.#main) this.#mainUsed = true;
    let ts = recordTimestamp ?? NO_TIMESTAMP;
    const assigner = this.#assigner;
    if (assigner !== undefined) {
      const assigned = assigner(value, ts);
      if (typeof assigned !== 'number' || !Number.isFinite(assigned)) throw new InvalidTimestampError(s.operator, s.uid, assigned, value, 'timestamp assigner');
      ts = assigned;
    } else if (ts !== NO_TIMESTAMP && (typeof ts !== 'number' || !Number.isFinite(ts))) {
      throw new InvalidTimestampError(s.operator, s.uid, ts, value, 'source');
    }
    state.generator?.onEvent(value, ts, state.output);
    s.time.current = ts;
    s.records.collect(value);
  }

  /** The minimum over the splits that are not idle goes downstream when it advances; all idle: the task is idle. */
  #combine(): void {
    if (this.#finished) return;
    let min = Infinity;
    let active = false;
    for (const state of this.#participants()) {
      if (state.idle) continue;
      active = true;
      if (state.watermark < min) min = state.watermark;
    }
    if (!active) {
      if (!this.#idle) {
        this.#idle = true;
        this.#s.eventTime.emitWatermarkStatus(true);
      }
      return;
    }
    if (this.#idle) {
      this.#idle = false;
      this.#s.eventTime.emitWatermarkStatus(false);
    }
    if (min > this.#emitted) this.#emit(min);
  }

  #emit(watermark: number): void {
    if (this.#idle) {
      this.#idle = false;
      this.#s.eventTime.emitWatermarkStatus(false);
    }
    this.#emitted = watermark;
    this.#s.eventTime.emitWatermark(watermark);
  }
}
