/**
 * Event time in weir is milliseconds as a JavaScript number. Flink's Long.MIN_VALUE ("no
 * watermark yet") and Long.MAX_VALUE (the end of event time, sent at the end of input so that
 * every window and timer fires) are -Infinity and Infinity: no record timestamp can be infinite,
 * and comparisons need no special cases. The REST API shows them as Flink's longs.
 */
export const MIN_WATERMARK = -Infinity;
export const MAX_WATERMARK = Infinity;

/** Flink's Watermark: event time has reached `timestamp`; no earlier record is expected. */
export class Watermark {
  static readonly MAX_WATERMARK = new Watermark(MAX_WATERMARK);
  readonly timestamp: number;
  constructor(timestamp: number) {
    this.timestamp = timestamp;
  }
  getTimestamp(): number {
    return this.timestamp;
  }
}

/** Where a WatermarkGenerator emits (Flink's WatermarkOutput); a watermark may be given as a number. */
export interface WatermarkOutput {
  emitWatermark(watermark: Watermark | number): void;
  /** No records and no watermarks for now: downstream does not wait for this output. */
  markIdle(): void;
  /** Records come again (emitting a watermark also does this). */
  markActive(): void;
}

export function watermarkValue(watermark: Watermark | number): number {
  return typeof watermark === 'number' ? watermark : watermark.timestamp;
}
