import type { Collector } from '../../api/functions.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import type { ProcessContext, ProcessFunction } from '../../api/process-function.ts';
import type { TimerService } from '../../api/timer-service.ts';
import { MIN_WATERMARK } from '../../api/watermark.ts';
import { NO_TIMESTAMP } from '../../network/record-timestamp.ts';
import { TimerServiceError } from '../timers/timer-service-error.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';
import { operatorRuntimeContext, unkeyedStateAccess } from './operator-runtime-context.ts';

/** A ProcessFunction on a stream that is not keyed: the record's timestamp, side outputs and the watermark, but no timers. */
export class ProcessOperator extends AbstractStreamOperator {
  readonly #fn: ProcessFunction<unknown, unknown>;
  #context!: ProcessContext;
  #watermark = MIN_WATERMARK;

  constructor(fn: ProcessFunction<unknown, unknown> | (() => ProcessFunction<unknown, unknown>)) {
    super();
    // As KeyedProcessOperator: a fresh object per parallel instance.
    this.#fn = typeof fn === 'function' ? fn() : (Object.create(fn) as ProcessFunction<unknown, unknown>);
  }

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    const time = ctx.timestamps;
    const noTimers = (what: string) => (): never => {
      throw new TimerServiceError(ctx.operatorName, ctx.operatorUid, `${what}: timers are only supported on a keyed stream (call keyBy(...) before process(...))`);
    };
    const timerService: TimerService = {
      currentProcessingTime: () => ctx.processingTime.now(),
      currentWatermark: () => this.#watermark,
      registerEventTimeTimer: noTimers('registerEventTimeTimer'),
      registerProcessingTimeTimer: noTimers('registerProcessingTimeTimer'),
      deleteEventTimeTimer: noTimers('deleteEventTimeTimer'),
      deleteProcessingTimeTimer: noTimers('deleteProcessingTimeTimer'),
    };
    this.#context = {
      timestamp: () => (time.current === NO_TIMESTAMP ? undefined : time.current),
      timerService: () => timerService,
      output: <X>(tag: OutputTag<X>, value: X) => ctx.sideOutput(tag.id)?.collect(value),
    };
    await this.#fn.open?.(operatorRuntimeContext(ctx, unkeyedStateAccess('process(...)')));
  }

  processElement(value: unknown): void {
    this.#fn.processElement(value, this.#context, this.output as Collector<unknown>);
  }

  override processWatermark(watermark: number): void {
    this.#watermark = watermark;
    super.processWatermark(watermark);
  }

  override endInput(): void {
    this.#fn.endInput?.(this.output as Collector<unknown>);
  }

  override async close(): Promise<void> {
    await this.#fn.close?.();
  }
}
