import type { KeySelector } from '../../api/functions.ts';
import { ValueStateDescriptor, type ListStateDescriptor, type ReducingStateDescriptor } from '../../api/state-descriptors.ts';
import type { ValueState } from '../../api/state.ts';
import { isFire, isPurge, type OnMergeContext, type Trigger, type TriggerContext, type TriggerResult } from '../../api/windowing/trigger.ts';
import { EventTimeTrigger, ProcessingTimeTrigger } from '../../api/windowing/triggers.ts';
import { TimeWindow, type Window } from '../../api/windowing/window.ts';
import { TumblingEventTimeWindows, TumblingProcessingTimeWindows } from '../../api/windowing/window-assigners.ts';
import { MergingWindowAssigner, type WindowKey } from '../../api/windowing/window-assigner.ts';
import type { WindowDefinition } from '../../api/windowing/window-definition.ts';
import type { OperatorContext } from '../operators/stream-operator.ts';
import type { FiredTimer } from '../timers/internal-timer-service.ts';
import { NamespacedStateStore } from './namespaced-state-store.ts';
import { WindowOperatorBase } from './window-operator-base.ts';

/**
 * Flink's WindowOperator: each record goes into each of its windows (a merging assigner's
 * windows merge first, their contents and trigger state with them), the trigger decides when a
 * window fires and purges, and a cleanup timer at the window's end plus the allowed lateness
 * removes it. Window contents (`_window-contents`: per key, window -> contents), the trigger's
 * state (`_trigger/<name>`), the active windows of merging assigners (`_merging-window-set`) and
 * the timers are keyed state.
 */
export class WindowOperator extends WindowOperatorBase {
  readonly #trigger: Trigger<unknown, Window>;
  readonly #merging: MergingWindowAssigner<unknown, Window> | undefined;
  /**
   * The built-in time triggers register the same timer for every record of a window, so a record
   * for a window that already has contents (and so its timers) may skip the trigger, unless it
   * is a late record within the allowed lateness (which fires the window again).
   */
  readonly #defaultTimeTrigger: 'event' | 'processing' | undefined;
  #triggerContext!: TriggerContext & OnMergeContext & { window: Window; merged: readonly WindowKey[] };
  #mergingWindows: ValueState<WindowKey[]> | undefined;
  /** Tumbling windows with a built-in time trigger: a record's window is its start, no window object per record. */
  readonly #tumbling: { readonly size: number; readonly offset: number } | undefined;

  constructor(definition: WindowDefinition, keySelector: KeySelector<unknown>) {
    super(definition, keySelector);
    this.#trigger = definition.trigger ?? definition.assigner.getDefaultTrigger();
    this.#merging = definition.assigner instanceof MergingWindowAssigner ? definition.assigner : undefined;
    this.#defaultTimeTrigger = this.#merging ? undefined : this.#trigger instanceof EventTimeTrigger ? 'event' : this.#trigger instanceof ProcessingTimeTrigger ? 'processing' : undefined;
    const a = definition.assigner;
    this.#tumbling = this.#defaultTimeTrigger && (a instanceof TumblingEventTimeWindows || a instanceof TumblingProcessingTimeWindows) ? { size: a.size, offset: a.offset } : undefined;
  }

  protected get contentsName(): string {
    return '_window-contents';
  }

  protected get perWindowState(): boolean {
    return this.#merging === undefined;
  }

  override async open(ctx: OperatorContext): Promise<void> {
    await super.open(ctx);
    const store = new NamespacedStateStore(this.backend, '_trigger/');
    if (this.#merging) this.#mergingWindows = this.backend.getValueState(new ValueStateDescriptor<WindowKey[]>('_merging-window-set'));
    const timers = this.timers;
    const assigner = this.assigner;
    const ns = (w: Window) => assigner.windowKey(w);
    this.#triggerContext = {
      window: undefined as unknown as Window,
      merged: [],
      getCurrentProcessingTime: () => ctx.processingTime.now(),
      getCurrentWatermark: () => timers.currentWatermark,
      registerProcessingTimeTimer(time) {
        timers.registerProcessingTimeTimer(ns(this.window), time);
      },
      registerEventTimeTimer(time) {
        timers.registerEventTimeTimer(ns(this.window), time);
      },
      deleteProcessingTimeTimer(time) {
        timers.deleteProcessingTimeTimer(ns(this.window), time);
      },
      deleteEventTimeTimer(time) {
        timers.deleteEventTimeTimer(ns(this.window), time);
      },
      getPartitionedState(descriptor: never) {
        store.namespace = ns(this.window);
        const d = descriptor as { kind: string };
        if (d.kind === 'reducing') return store.getReducingState(descriptor) as never;
        if (d.kind === 'list') return store.getListState(descriptor) as never;
        if (d.kind === 'value') return store.getState(descriptor) as never;
        throw new TypeError(`a trigger's state may be value, list or reducing state, not ${d.kind}`);
      },
      mergePartitionedState(descriptor: ReducingStateDescriptor<unknown> | ListStateDescriptor<unknown>) {
        store.namespace = ns(this.window);
        store.mergeInto(descriptor, this.merged);
      },
    };
  }

  #context(window: Window): TriggerContext & OnMergeContext {
    const c = this.#triggerContext;
    c.window = window;
    return c;
  }

  processElement(value: unknown): void {
    if (this.#tumbling !== undefined) return this.#processTumbling(value, this.#tumbling.size, this.#tumbling.offset);
    const ts = this.timestampOf(value);
    const windows = this.assigner.assignWindows(value, ts, this.assignerContext);
    this.currentKey(value);
    let skipped = true;
    if (this.#merging) {
      for (const w of windows) if (this.#addToMergingWindow(w, value, ts)) skipped = false;
    } else {
      const watermark = this.timers.currentWatermark;
      for (let i = 0; i < windows.length; i++) {
        const w = windows[i]!;
        if (this.isWindowLate(w)) continue;
        skipped = false;
        const ns = this.assigner.windowKey(w);
        const map = this.contents.value();
        const existing = map?.get(ns);
        const contents = this.aggregator.add(existing, value);
        if (map === undefined) this.contents.update(new Map([[ns, contents]]));
        else map.set(ns, contents);
        if (existing !== undefined && this.#defaultTimeTrigger !== undefined && (this.#defaultTimeTrigger === 'processing' || w.maxTimestamp() > watermark)) continue;
        this.#afterAdd(w, ns, value, ts);
      }
    }
    if (skipped && this.isEventTime && ts + this.allowedLateness <= this.timers.currentWatermark) this.lateRecord(value);
  }

  /** processElement of tumbling windows with a built-in time trigger (the same steps, on the window's start). */
  #processTumbling(value: unknown, size: number, offset: number): void {
    const ts = this.timestampOf(value);
    const t = this.isEventTime ? ts : this.ctx.processingTime.now();
    const start = TimeWindow.getWindowStartWithOffset(t, offset, size);
    const max = start + size - 1;
    this.currentKey(value);
    const watermark = this.timers.currentWatermark;
    if (this.isEventTime && max + this.allowedLateness <= watermark) {
      if (ts + this.allowedLateness <= watermark) this.lateRecord(value);
      return;
    }
    const map = this.contents.value();
    const existing = map?.get(start);
    const contents = this.aggregator.add(existing, value);
    if (map === undefined) this.contents.update(new Map([[start, contents]]));
    else map.set(start, contents);
    if (existing !== undefined && (!this.isEventTime || max > watermark)) return;
    this.#afterAdd(new TimeWindow(start, start + size), start, value, ts);
  }

  /** The trigger's say on the record just added to `w`, then the window's cleanup timer. */
  #afterAdd(w: Window, ns: WindowKey, value: unknown, ts: number): void {
    const result = this.#trigger.onElement(value, ts, w, this.#context(w));
    this.#apply(result, w, ns);
    this.#registerCleanupTimer(w);
  }

  #apply(result: TriggerResult, w: Window, ns: WindowKey): void {
    if (result === 'CONTINUE') return;
    if (isFire(result)) {
      const contents = this.contents.value()?.get(ns);
      if (contents !== undefined) this.emit(w, contents);
    }
    if (isPurge(result)) this.removeContents(ns);
  }

  /** Merging assigners: the new window merges with the key's windows it touches; returns whether the record went in. */
  #addToMergingWindow(newWindow: Window, value: unknown, ts: number): boolean {
    const assigner = this.#merging!;
    const key = (w: Window) => assigner.windowKey(w);
    const activeKeys = this.#mergingWindows!.value() ?? [];
    const active = activeKeys.map((k) => assigner.windowOf(k));
    let actual = newWindow;
    const stillActive = new Set(activeKeys);
    assigner.mergeWindows([...active, newWindow], (toBeMerged, result) => {
      if (this.isEventTime && this.cleanupTime(result) <= this.timers.currentWatermark) {
        throw new Error(`operator '${this.ctx.operatorName}': merging made ${result.toString()}, whose end is already past the watermark ${this.timers.currentWatermark}`);
      }
      if (toBeMerged.some((w) => key(w) === key(newWindow))) actual = result;
      const resultKey = key(result);
      const mergedAway = toBeMerged.map(key).filter((k) => k !== resultKey);
      // The merged windows' contents become the result's (a heap backend has no cost to spare here
      // by keeping the first window as the state window, as Flink's MergingWindowSet does).
      let merged = this.getContents(resultKey);
      for (const k of mergedAway) {
        const c = this.getContents(k);
        if (c === undefined) continue;
        merged = merged === undefined ? c : this.aggregator.merge(merged, c);
        this.removeContents(k);
      }
      if (merged !== undefined) this.setContents(resultKey, merged);
      const ctx = this.#context(result);
      this.#triggerContext.merged = mergedAway;
      this.#trigger.onMerge(result, ctx);
      this.#triggerContext.merged = [];
      for (const k of mergedAway) {
        const m = assigner.windowOf(k);
        this.#trigger.clear(m, this.#context(m));
        this.#deleteCleanupTimer(m);
        stillActive.delete(k);
      }
      stillActive.add(resultKey);
    });
    const actualKey = key(actual);
    if (this.isWindowLate(actual)) {
      stillActive.delete(actualKey);
      this.#storeActive(stillActive);
      return false;
    }
    stillActive.add(actualKey);
    this.#storeActive(stillActive);
    this.setContents(actualKey, this.aggregator.add(this.getContents(actualKey), value));
    this.#afterAdd(actual, actualKey, value, ts);
    return true;
  }

  #storeActive(keys: ReadonlySet<WindowKey>): void {
    if (keys.size === 0) this.#mergingWindows!.clear();
    else this.#mergingWindows!.update([...keys]);
  }

  protected onEventTime(timer: FiredTimer): void {
    this.#onTimer(timer, true);
  }

  protected onProcessingTime(timer: FiredTimer): void {
    this.#onTimer(timer, false);
  }

  #onTimer(timer: FiredTimer, eventTime: boolean): void {
    const ns = timer.namespace as WindowKey;
    // A timer of a window that merged into another since: nothing of it is left.
    if (this.#merging && !(this.#mergingWindows!.value() ?? []).includes(ns)) return;
    const window = this.assigner.windowOf(ns);
    const ctx = this.#context(window);
    const result = eventTime ? this.#trigger.onEventTime(timer.timestamp, window, ctx) : this.#trigger.onProcessingTime(timer.timestamp, window, ctx);
    this.#apply(result, window, ns);
    if (eventTime === this.isEventTime && timer.timestamp === this.cleanupTime(window)) this.#clearAllState(window, ns);
  }

  #clearAllState(window: Window, ns: WindowKey): void {
    this.removeContents(ns);
    this.#trigger.clear(window, this.#context(window));
    this.clearWindowFunction(window);
    if (this.#merging) {
      const active = new Set(this.#mergingWindows!.value() ?? []);
      active.delete(ns);
      this.#storeActive(active);
    }
  }

  #registerCleanupTimer(window: Window): void {
    const t = this.cleanupTime(window);
    if (t === Infinity) return;
    const ns = this.assigner.windowKey(window);
    if (this.isEventTime) this.timers.registerEventTimeTimer(ns, t);
    else this.timers.registerProcessingTimeTimer(ns, t);
  }

  #deleteCleanupTimer(window: Window): void {
    const t = this.cleanupTime(window);
    if (t === Infinity) return;
    const ns = this.assigner.windowKey(window);
    if (this.isEventTime) this.timers.deleteEventTimeTimer(ns, t);
    else this.timers.deleteProcessingTimeTimer(ns, t);
  }
}
