import type { Collector, KeyedContext, KeyedProcessFunction, KeySelector, OnTimerContext, RuntimeContext } from '../../api/functions.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import type { TimeDomain, TimerService } from '../../api/timer-service.ts';
import { NO_TIMESTAMP } from '../../network/record-timestamp.ts';
import type { Key } from '../../state/key-group.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import { InternalTimerService, type FiredTimer } from '../timers/internal-timer-service.ts';
import { TimerServiceError } from '../timers/timer-service-error.ts';
import { AbstractStreamOperator, type OperatorContext } from './stream-operator.ts';
import { keyedStateAccess, operatorRuntimeContext } from './operator-runtime-context.ts';

/**
 * Runs a KeyedProcessFunction: processElement with the record's key current, and onTimer for
 * its timers, which are keyed state of this operator (see InternalTimerService). Timers fire
 * when the watermark passes them (event time) or as mail when the clock does (processing time),
 * so never during processElement.
 */
export class KeyedProcessOperator extends AbstractStreamOperator {
  readonly #fn: KeyedProcessFunction<Key, unknown, unknown>;
  readonly #keySelector: KeySelector<unknown>;
  #backend!: KeyedStateBackend;
  #ctx!: OperatorContext;
  #timers!: InternalTimerService;
  #context!: KeyedContext<Key>;
  #timerContext!: OnTimerContext<Key>;
  #domain: TimeDomain = 'EVENT_TIME';
  /** Whether a key is current: inside processElement or onTimer. */
  #keyed = false;

  constructor(fn: KeyedProcessFunction<Key, unknown, unknown> | (() => KeyedProcessFunction<Key, unknown, unknown>), keySelector: KeySelector<unknown>) {
    super();
    // One function object per parallel instance: open() keeps per-subtask things (state handles,
    // the subtask index) on `this`, and subtasks in one thread share the job graph's object. A
    // factory makes a fresh one (class instances with #private fields need that); otherwise the
    // user's object is the prototype: its methods and fields are inherited, writes are not.
    this.#fn = typeof fn === 'function' ? fn() : (Object.create(fn) as KeyedProcessFunction<Key, unknown, unknown>);
    this.#keySelector = keySelector;
  }

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    this.#ctx = ctx;
    const backend = ctx.keyedState!;
    this.#backend = backend;
    this.#timers = new InternalTimerService({
      name: 'user-timers',
      backend,
      processingTime: ctx.processingTime,
      triggerable: { onEventTime: (t) => this.#onTimer(t, 'EVENT_TIME'), onProcessingTime: (t) => this.#onTimer(t, 'PROCESSING_TIME') },
    });
    const timerService = this.#userTimerService();
    const time = ctx.timestamps;
    const output = <X>(tag: OutputTag<X>, value: X): void => ctx.sideOutput(tag.id)?.collect(value);
    this.#context = {
      getCurrentKey: () => backend.currentKey,
      timestamp: () => (time.current === NO_TIMESTAMP ? undefined : time.current),
      timerService: () => timerService,
      output,
    };
    this.#timerContext = { ...this.#context, timeDomain: () => this.#domain };
    const runtime = operatorRuntimeContext(ctx, keyedStateAccess(backend));
    this.#timers.open();
    await this.#fn.open?.(runtime);
    const fn = this.#fn;
    if (fn.metrics) ctx.metrics.figures = () => fn.metrics!();
  }

  #userTimerService(): TimerService {
    const timers = this.#timers;
    const check = (what: string, time: unknown): number => {
      if (!this.#keyed) {
        throw new TimerServiceError(this.#ctx.operatorName, this.#ctx.operatorUid, `${what} was called with no key current: timers belong to a key, so they can be registered and deleted only in processElement or onTimer, not in open, endInput or close`);
      }
      if (typeof time !== 'number' || Number.isNaN(time)) throw new TimerServiceError(this.#ctx.operatorName, this.#ctx.operatorUid, `${what} needs a time in ms, got ${String(time)}`);
      return time;
    };
    return {
      currentProcessingTime: () => timers.currentProcessingTime(),
      currentWatermark: () => timers.currentWatermark,
      registerEventTimeTimer: (t) => timers.registerEventTimeTimer(null, check('registerEventTimeTimer', t)),
      registerProcessingTimeTimer: (t) => timers.registerProcessingTimeTimer(null, check('registerProcessingTimeTimer', t)),
      deleteEventTimeTimer: (t) => timers.deleteEventTimeTimer(null, check('deleteEventTimeTimer', t)),
      deleteProcessingTimeTimer: (t) => timers.deleteProcessingTimeTimer(null, check('deleteProcessingTimeTimer', t)),
    };
  }

  processElement(value: unknown): void {
    this.#backend.setCurrentKey(this.#keySelector(value) as Key);
    this.#keyed = true;
    try {
      this.#fn.processElement(value, this.#context, this.output as Collector<unknown>);
    } finally {
      this.#keyed = false;
    }
  }

  /** Records emitted in onTimer carry the timer's time (event time) or none (processing time), as in Flink. */
  #onTimer(timer: FiredTimer, domain: TimeDomain): void {
    const time = this.#ctx.timestamps;
    const previous = time.current;
    time.current = domain === 'EVENT_TIME' ? timer.timestamp : NO_TIMESTAMP;
    this.#domain = domain;
    this.#keyed = true;
    try {
      this.#fn.onTimer?.(timer.timestamp, this.#timerContext, this.output as Collector<unknown>);
    } finally {
      this.#keyed = false;
      time.current = previous;
    }
  }

  override processWatermark(watermark: number): void {
    this.#timers.advanceWatermark(watermark);
    super.processWatermark(watermark);
  }

  override endInput(): void {
    this.#fn.endInput?.(this.output as Collector<unknown>);
  }

  override async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    await this.#fn.notifyCheckpointComplete?.(checkpointId);
  }

  override async notifyCheckpointAborted(checkpointId: number): Promise<void> {
    await this.#fn.notifyCheckpointAborted?.(checkpointId);
  }

  override async close(): Promise<void> {
    this.#timers?.close();
    await this.#fn.close?.();
  }
}
