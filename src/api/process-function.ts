import type { Collector, RuntimeContext } from './functions.ts';
import type { OutputTag } from './output-tag.ts';
import type { TimerService } from './timer-service.ts';

/** What processElement is given besides the record (Flink's ProcessFunction.Context). */
export interface ProcessContext {
  /** The record's event-time timestamp; undefined when it has none. */
  timestamp(): number | undefined;
  timerService(): TimerService;
  /** Emits to a side output: the stream `getSideOutput(tag)` of this operator's result. */
  output<X>(tag: OutputTag<X>, value: X): void;
}

/**
 * Flink's ProcessFunction on a stream that is not keyed: a call per record, side outputs, the
 * record's timestamp and the current watermark. Timers need a keyed stream (`keyBy(...).process`);
 * registering one here is a TimerServiceError.
 */
export interface ProcessFunction<I, O> {
  open?(ctx: RuntimeContext): void | Promise<void>;
  processElement(value: I, ctx: ProcessContext, out: Collector<O>): void;
  endInput?(out: Collector<O>): void;
  close?(): void | Promise<void>;
}
