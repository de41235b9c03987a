import type { Collector, KeySelector, RuntimeContext } from '../../api/functions.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import { ValueStateDescriptor } from '../../api/state-descriptors.ts';
import type { ValueState } from '../../api/state.ts';
import type { KeyedStateStore } from '../../api/windowing/keyed-state-store.ts';
import type { ProcessWindowFunction, WindowContext } from '../../api/windowing/process-window-function.ts';
import type { Window } from '../../api/windowing/window.ts';
import type { WindowAssigner, WindowAssignerContext, WindowKey } from '../../api/windowing/window-assigner.ts';
import type { WindowDefinition } from '../../api/windowing/window-definition.ts';
import { NO_TIMESTAMP } from '../../network/record-timestamp.ts';
import type { Key } from '../../state/key-group.ts';
import type { KeyedStateBackend } from '../../state/keyed-state-backend.ts';
import { AbstractStreamOperator, type OperatorContext } from '../operators/stream-operator.ts';
import { keyedStateAccess, operatorRuntimeContext } from '../operators/operator-runtime-context.ts';
import { InternalTimerService, type FiredTimer } from '../timers/internal-timer-service.ts';
import { MissingTimestampError } from './missing-timestamp-error.ts';
import { NamespacedStateStore } from './namespaced-state-store.ts';
import { windowAggregator, type WindowAggregator } from './window-aggregator.ts';

type AnyWindowFunction = ProcessWindowFunction<unknown, unknown, unknown, Window>;

/**
 * What every window operator shares (Flink's WindowOperator, apart from how contents are kept):
 * keyed contents state, the timer service of window timers, the window function and its context,
 * emitting a window's result with the window's end - 1 as its timestamp, and records too late for
 * every window (the late-data side output, or numLateRecordsDropped).
 */
export abstract class WindowOperatorBase extends AbstractStreamOperator {
  protected readonly definition: WindowDefinition;
  protected readonly assigner: WindowAssigner<unknown, Window>;
  protected readonly keySelector: KeySelector<unknown>;
  protected readonly aggregator: WindowAggregator;
  protected readonly isEventTime: boolean;
  protected readonly allowedLateness: number;
  protected ctx!: OperatorContext;
  protected backend!: KeyedStateBackend;
  protected timers!: InternalTimerService;
  /** Per key: window (or pane) -> contents. */
  protected contents!: ValueState<Map<WindowKey, unknown>>;
  protected readonly assignerContext: WindowAssignerContext = { currentProcessingTime: () => this.ctx.processingTime.now() };
  #windowFunction: AnyWindowFunction | undefined;
  #windowState!: NamespacedStateStore;
  #windowContext!: WindowContext<Window> & { current: Window };
  #late: { collect(value: unknown): void } | undefined;

  constructor(definition: WindowDefinition, keySelector: KeySelector<unknown>) {
    super();
    this.definition = definition;
    this.assigner = definition.assigner;
    this.keySelector = keySelector;
    this.aggregator = windowAggregator(definition.fn);
    this.isEventTime = definition.assigner.isEventTime();
    this.allowedLateness = definition.allowedLateness;
  }

  /** The contents state's name: what `weir inspect` shows. */
  protected abstract get contentsName(): string;
  /** Whether per-window state may be used (not with merging windows). */
  protected abstract get perWindowState(): boolean;
  protected abstract onEventTime(timer: FiredTimer): void;
  protected abstract onProcessingTime(timer: FiredTimer): void;

  override async open(ctx: OperatorContext): Promise<void> {
    super.open(ctx);
    this.ctx = ctx;
    const backend = ctx.keyedState!;
    this.backend = backend;
    this.contents = backend.getValueState(new ValueStateDescriptor<Map<WindowKey, unknown>>(this.contentsName));
    this.timers = new InternalTimerService({
      name: 'window-timers',
      backend,
      processingTime: ctx.processingTime,
      triggerable: { onEventTime: (t) => this.onEventTime(t), onProcessingTime: (t) => this.onProcessingTime(t) },
    });
    const tag = this.definition.lateDataTag;
    this.#late = tag ? ctx.sideOutput(tag.id) : undefined;
    this.#windowState = new NamespacedStateStore(backend, '_window-state/');
    const perWindow = this.perWindowState;
    const globalState: KeyedStateStore = {
      getState: (d) => backend.getValueState(d),
      getListState: (d) => backend.getListState(d),
      getMapState: (d) => backend.getMapState(d),
      getReducingState: (d) => backend.getReducingState(d),
      getAggregatingState: (d) => backend.getAggregatingState(d),
    };
    const windowState = this.#windowState;
    const self = this;
    this.#windowContext = {
      current: undefined as unknown as Window,
      window() {
        return this.current;
      },
      currentProcessingTime: () => ctx.processingTime.now(),
      currentWatermark: () => this.timers.currentWatermark,
      windowState() {
        if (!perWindow) throw new TypeError(`operator '${ctx.operatorName}': per-window state is not supported with merging windows (${self.assigner.toString()}); use globalState()`);
        windowState.namespace = self.assigner.windowKey(this.current);
        return windowState;
      },
      globalState: () => globalState,
      output: <X>(t: OutputTag<X>, value: X) => ctx.sideOutput(t.id)?.collect(value),
    };
    const fn = this.definition.fn.windowFunction;
    // One function object per parallel instance, as for process functions.
    this.#windowFunction = fn === undefined ? undefined : typeof fn === 'function' ? fn() : (Object.create(fn) as AnyWindowFunction);
    this.timers.open();
    await this.#windowFunction?.open?.(operatorRuntimeContext(ctx, keyedStateAccess(backend)));
  }

  /** The record's time in the assigner's domain; an event-time window needs a timestamp. */
  protected timestampOf(value: unknown): number {
    const ts = this.ctx.timestamps.current;
    if (this.isEventTime && ts === NO_TIMESTAMP) throw new MissingTimestampError(this.ctx.operatorName, this.ctx.operatorUid, value);
    return ts;
  }

  /** The time after which a window is gone: its end plus the allowed lateness in event time, its end in processing time. */
  protected cleanupTime(window: Window): number {
    return this.isEventTime ? window.maxTimestamp() + this.allowedLateness : window.maxTimestamp();
  }

  protected isWindowLate(window: Window): boolean {
    return this.isEventTime && this.cleanupTime(window) <= this.timers.currentWatermark;
  }

  /** A record that went into no window because all of them are gone. */
  protected lateRecord(value: unknown): void {
    if (this.#late !== undefined) this.#late.collect(value);
    else this.ctx.metrics.numLateRecordsDropped++;
  }

  /** The window's result, with its end - 1 as the timestamp (Flink's TimestampedCollector). */
  protected emit(window: Window, contents: unknown): void {
    const time = this.ctx.timestamps;
    const previous = time.current;
    time.current = window.maxTimestamp();
    try {
      const elements = this.aggregator.elements(contents);
      const fn = this.#windowFunction;
      if (fn === undefined) {
        for (const e of elements) this.output.collect(e);
      } else {
        this.#windowContext.current = window;
        fn.process(this.backend.currentKey, this.#windowContext, elements, this.output as Collector<unknown>);
      }
    } finally {
      time.current = previous;
    }
  }

  /** The window is gone: its window function clears its per-window state. */
  protected clearWindowFunction(window: Window): void {
    const fn = this.#windowFunction;
    if (fn?.clear === undefined) return;
    this.#windowContext.current = window;
    fn.clear(this.#windowContext);
  }

  protected currentKey(value: unknown): Key {
    const key = this.keySelector(value) as Key;
    this.backend.setCurrentKey(key);
    return key;
  }

  /** The current key's contents of a window. */
  protected getContents(ns: WindowKey): unknown {
    return this.contents.value()?.get(ns);
  }

  protected setContents(ns: WindowKey, value: unknown): void {
    const m = this.contents.value();
    if (m === undefined) this.contents.update(new Map([[ns, value]]));
    else m.set(ns, value);
  }

  protected removeContents(ns: WindowKey): void {
    const m = this.contents.value();
    if (m === undefined || !m.delete(ns)) return;
    if (m.size === 0) this.contents.clear();
  }

  override processWatermark(watermark: number): void {
    this.timers.advanceWatermark(watermark);
    super.processWatermark(watermark);
  }

  override async close(): Promise<void> {
    this.timers?.close();
    await this.#windowFunction?.close?.();
  }
}

