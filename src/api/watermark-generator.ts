import type { WatermarkOutput } from './watermark.ts';

/**
 * Makes watermarks from the records' timestamps (Flink's WatermarkGenerator): onEvent sees every
 * record of its split (or stream), onPeriodicEmit is called every `pipeline.auto-watermark-interval`
 * (200 ms). A generator that emits in onEvent is punctuated; one that emits in onPeriodicEmit is
 * periodic. One generator per source split, so it may keep state on `this`.
 */
export interface WatermarkGenerator<T> {
  onEvent(event: T, eventTimestamp: number, output: WatermarkOutput): void;
  onPeriodicEmit(output: WatermarkOutput): void;
}

/** What a generator factory is given (Flink's WatermarkGeneratorSupplier.Context). */
export interface WatermarkGeneratorContext {
  /** Processing time in ms (a manual clock in tests): what idleness is measured by. */
  currentProcessingTime(): number;
}
