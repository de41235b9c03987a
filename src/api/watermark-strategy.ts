import { BoundedOutOfOrdernessWatermarks } from './bounded-out-of-orderness-watermarks.ts';
import { durationArg, type DurationArg } from './duration-arg.ts';
import type { WatermarkGenerator, WatermarkGeneratorContext } from './watermark-generator.ts';
import { WatermarksWithIdleness } from './watermarks-with-idleness.ts';

/**
 * Extracts a record's event-time timestamp in ms (Flink's SerializableTimestampAssigner).
 * `recordTimestamp` is the one the source gave the record (a CDC change's commit time, a
 * datagen event time), or -Infinity when it has none. Timestamps must be finite numbers;
 * negative ones (before 1970) are fine.
 */
export type TimestampAssigner<T> = (element: T, recordTimestamp: number) => number;

/** FLIP-182: sources of one group whose watermark runs more than `maxDrift` ms ahead of the group's slowest pause. */
export interface WatermarkAlignment {
  readonly group: string;
  readonly maxDrift: number;
  /** How often each source reports its watermark and learns the group's (Flink's default 1 s). */
  readonly updateInterval: number;
}

type GeneratorFactory<T> = (ctx: WatermarkGeneratorContext) => WatermarkGenerator<T>;

interface StrategyParts<T> {
  /** Undefined: no watermarks at all (noWatermarks); records still carry their timestamps. */
  readonly generator: GeneratorFactory<T> | undefined;
  readonly assigner: TimestampAssigner<T> | undefined;
  readonly idleness: number | undefined;
  readonly alignment: WatermarkAlignment | undefined;
}

/**
 * How records get their event-time timestamps and how watermarks are made from them (Flink's
 * WatermarkStrategy). Given to a source (`env.fromSource(source, { watermarks })`), where a
 * generator runs per split, or to `stream.assignTimestampsAndWatermarks(strategy)`. Immutable:
 * each `with...` returns a new strategy.
 */
export class WatermarkStrategy<T> {
  readonly #p: StrategyParts<T>;

  private constructor(parts: StrategyParts<T>) {
    this.#p = parts;
  }

  /** Records are at most `maxOutOfOrderness` (ms or a duration such as '5 s') late relative to a later-stamped one. */
  static forBoundedOutOfOrderness<T>(maxOutOfOrderness: DurationArg): WatermarkStrategy<T> {
    const bound = durationArg(maxOutOfOrderness, 'WatermarkStrategy.forBoundedOutOfOrderness', 'maxOutOfOrderness');
    return new WatermarkStrategy<T>({ generator: () => new BoundedOutOfOrdernessWatermarks<T>(bound), assigner: undefined, idleness: undefined, alignment: undefined });
  }

  /** Timestamps never go down within a split (Flink's AscendingTimestampsWatermarks). */
  static forMonotonousTimestamps<T>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>({ generator: () => new BoundedOutOfOrdernessWatermarks<T>(0), assigner: undefined, idleness: undefined, alignment: undefined });
  }

  /** Records keep (or get) timestamps, but no watermarks are made: event-time windows never fire before the end of input. */
  static noWatermarks<T>(): WatermarkStrategy<T> {
    return new WatermarkStrategy<T>({ generator: undefined, assigner: undefined, idleness: undefined, alignment: undefined });
  }

  /** A user-written generator: `factory` makes one per split. */
  static forGenerator<T>(factory: (ctx: WatermarkGeneratorContext) => WatermarkGenerator<T>): WatermarkStrategy<T> {
    if (typeof factory !== 'function') throw new TypeError('WatermarkStrategy.forGenerator needs a function (ctx) => WatermarkGenerator');
    return new WatermarkStrategy<T>({
      generator: (ctx) => {
        const g = factory(ctx);
        if (typeof g?.onEvent !== 'function' || typeof g.onPeriodicEmit !== 'function') {
          throw new TypeError('a WatermarkGenerator needs onEvent(event, timestamp, output) and onPeriodicEmit(output) methods');
        }
        return g;
      },
      assigner: undefined,
      idleness: undefined,
      alignment: undefined,
    });
  }

  withTimestampAssigner(assigner: TimestampAssigner<T>): WatermarkStrategy<T> {
    if (typeof assigner !== 'function') throw new TypeError('withTimestampAssigner needs a function (element, recordTimestamp) => timestamp');
    return new WatermarkStrategy<T>({ ...this.#p, assigner });
  }

  /** A split without records for `timeout` of processing time is idle and does not hold the watermark back. */
  withIdleness(timeout: DurationArg): WatermarkStrategy<T> {
    const ms = durationArg(timeout, 'WatermarkStrategy.withIdleness', 'timeout', true);
    return new WatermarkStrategy<T>({ ...this.#p, idleness: ms });
  }

  /**
   * FLIP-182/217: a source split whose watermark is more than `maxDrift` ahead of the slowest in
   * `group` (over every source of the group) stops being read until the others catch up.
   */
  withWatermarkAlignment(group: string, maxDrift: DurationArg, updateInterval: DurationArg = 1000): WatermarkStrategy<T> {
    if (typeof group !== 'string' || group === '') throw new TypeError('withWatermarkAlignment needs a group name');
    const drift = durationArg(maxDrift, 'WatermarkStrategy.withWatermarkAlignment', 'maxDrift');
    const interval = durationArg(updateInterval, 'WatermarkStrategy.withWatermarkAlignment', 'updateInterval', true);
    return new WatermarkStrategy<T>({ ...this.#p, alignment: { group, maxDrift: drift, updateInterval: interval } });
  }

  /** A fresh generator for one split (or stream); undefined for noWatermarks. */
  createWatermarkGenerator(ctx: WatermarkGeneratorContext): WatermarkGenerator<T> | undefined {
    const g = this.#p.generator?.(ctx);
    if (g === undefined || this.#p.idleness === undefined) return g;
    return new WatermarksWithIdleness(g, this.#p.idleness, () => ctx.currentProcessingTime());
  }

  get timestampAssigner(): TimestampAssigner<T> | undefined {
    return this.#p.assigner;
  }

  get alignment(): WatermarkAlignment | undefined {
    return this.#p.alignment;
  }

  get idleness(): number | undefined {
    return this.#p.idleness;
  }

  /** Whether watermarks are made at all. */
  get hasWatermarks(): boolean {
    return this.#p.generator !== undefined;
  }
}
