import { MIN_WATERMARK, type WatermarkOutput } from './watermark.ts';
import type { WatermarkGenerator } from './watermark-generator.ts';

/**
 * Flink's BoundedOutOfOrdernessWatermarks: records arrive at most `maxOutOfOrderness` ms later
 * than a record with a larger timestamp, so the watermark is the largest timestamp seen minus
 * that, minus 1 (a record exactly at the bound is still on time). With 0 it is Flink's
 * AscendingTimestampsWatermarks (forMonotonousTimestamps).
 */
export class BoundedOutOfOrdernessWatermarks<T> implements WatermarkGenerator<T> {
  readonly #outOfOrderness: number;
  #maxTimestamp = MIN_WATERMARK;

  constructor(maxOutOfOrderness: number) {
    this.#outOfOrderness = maxOutOfOrderness;
  }

  onEvent(_event: T, eventTimestamp: number): void {
    if (eventTimestamp > this.#maxTimestamp) this.#maxTimestamp = eventTimestamp;
  }

  onPeriodicEmit(output: WatermarkOutput): void {
    // Before the first record -Infinity stays -Infinity: nothing is emitted downstream for it.
    output.emitWatermark(this.#maxTimestamp - this.#outOfOrderness - 1);
  }
}
