import { MAX_WATERMARK, MIN_WATERMARK, watermarkValue, type WatermarkOutput } from '../../api/watermark.ts';
import type { WatermarkGenerator } from '../../api/watermark-generator.ts';
import type { TimestampAssigner, WatermarkStrategy } from '../../api/watermark-strategy.ts';
import type { Timer } from '../../clock/clock.ts';
import { InvalidTimestampError } from '../invalid-timestamp-error.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';

/**
 * stream.assignTimestampsAndWatermarks(strategy) (Flink's TimestampsAndWatermarksOperator):
 * records get new timestamps, and watermarks come from this operator's generator only; those
 * from upstream are dropped, except the final one (the end of input).
 */
export class TimestampsAndWatermarksOperator extends AbstractStreamOperator {
  readonly #strategy: WatermarkStrategy<unknown>;
  #ctx!: OperatorContext;
  #assigner: TimestampAssigner<unknown> | undefined;
  #generator: WatermarkGenerator<unknown> | undefined;
  #output!: WatermarkOutput;
  #watermark = MIN_WATERMARK;
  #idle = false;
  #periodic: Timer | undefined;

  constructor(strategy: WatermarkStrategy<unknown>) {
    super();
    this.#strategy = strategy;
  }

  override open(ctx: OperatorContext): void {
    super.open(ctx);
    this.#ctx = ctx;
    this.#assigner = this.#strategy.timestampAssigner;
    this.#generator = this.#strategy.createWatermarkGenerator({ currentProcessingTime: () => ctx.processingTime.now() });
    const out = ctx.eventTimeOutput;
    this.#output = {
      emitWatermark: (wm) => {
        const value = watermarkValue(wm);
        if (value <= this.#watermark) return;
        this.#markActive();
        this.#watermark = value;
        out.emitWatermark(value);
      },
      markIdle: () => {
        if (this.#idle) return;
        this.#idle = true;
        out.emitWatermarkStatus(true);
      },
      markActive: () => this.#markActive(),
    };
    if (this.#generator !== undefined && ctx.autoWatermarkInterval > 0) this.#schedule();
  }

  #markActive(): void {
    if (!this.#idle) return;
    this.#idle = false;
    this.#ctx.eventTimeOutput.emitWatermarkStatus(false);
  }

  #schedule(): void {
    const time = this.#ctx.processingTime;
    this.#periodic = time.registerTimer(time.now() + this.#ctx.autoWatermarkInterval, 'periodic watermark', () => {
      if (this.#watermark === MAX_WATERMARK) return;
      this.#generator!.onPeriodicEmit(this.#output);
      this.#schedule();
    });
  }

  processElement(value: unknown): void {
    const time = this.#ctx.timestamps;
    let ts = time.current;
    const assigner = this.#assigner;
    if (assigner !== undefined) {
      const assigned = assigner(value, ts);
      if (typeof assigned !== 'number' || !Number.isFinite(assigned)) throw new InvalidTimestampError(this.#ctx.operatorName, this.#ctx.operatorUid, assigned, value, 'timestamp assigner');
      time.current = ts = assigned;
    }
    this.output.collect(value);
    time.current = ts;
    this.#generator?.onEvent(value, ts, this.#output);
  }

  override processWatermark(watermark: number): void {
    if (watermark !== MAX_WATERMARK || this.#watermark === MAX_WATERMARK) return;
    this.#periodic?.cancel();
    this.#markActive();
    this.#watermark = MAX_WATERMARK;
    this.#ctx.eventTimeOutput.emitWatermark(MAX_WATERMARK);
  }

  /** Upstream idleness means nothing here: this operator's generator decides (withIdleness). */
  override processWatermarkStatus(): void {}

  override close(): void {
    this.#periodic?.cancel();
  }
}
