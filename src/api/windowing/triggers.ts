import { ReducingStateDescriptor } from '../state-descriptors.ts';
import { durationArg, type DurationArg } from '../duration-arg.ts';
import { Trigger, type OnMergeContext, type TriggerContext, type TriggerResult } from './trigger.ts';
import type { TimeWindow, Window } from './window.ts';

/** Fires once the watermark passes the window's end (the default of event-time windows); again for each late record within allowed lateness. */
export class EventTimeTrigger extends Trigger<unknown, TimeWindow> {
  static readonly INSTANCE = new EventTimeTrigger();
  static create(): EventTimeTrigger {
    return EventTimeTrigger.INSTANCE;
  }
  onElement(_e: unknown, _ts: number, window: TimeWindow, ctx: TriggerContext): TriggerResult {
    if (window.maxTimestamp() <= ctx.getCurrentWatermark()) return 'FIRE';
    ctx.registerEventTimeTimer(window.maxTimestamp());
    return 'CONTINUE';
  }
  override onEventTime(time: number, window: TimeWindow): TriggerResult {
    return time === window.maxTimestamp() ? 'FIRE' : 'CONTINUE';
  }
  override canMerge(): boolean {
    return true;
  }
  override onMerge(window: TimeWindow, ctx: OnMergeContext): void {
    // Only when the merged window is not already late: a timer at a passed time would fire at once.
    if (window.maxTimestamp() > ctx.getCurrentWatermark()) ctx.registerEventTimeTimer(window.maxTimestamp());
  }
  override clear(window: TimeWindow, ctx: TriggerContext): void {
    ctx.deleteEventTimeTimer(window.maxTimestamp());
  }
  override toString(): string {
    return 'EventTimeTrigger';
  }
}

/** Fires when the clock passes the window's end (the default of processing-time windows). */
export class ProcessingTimeTrigger extends Trigger<unknown, TimeWindow> {
  static readonly INSTANCE = new ProcessingTimeTrigger();
  static create(): ProcessingTimeTrigger {
    return ProcessingTimeTrigger.INSTANCE;
  }
  onElement(_e: unknown, _ts: number, window: TimeWindow, ctx: TriggerContext): TriggerResult {
    ctx.registerProcessingTimeTimer(window.maxTimestamp());
    return 'CONTINUE';
  }
  override onProcessingTime(): TriggerResult {
    return 'FIRE';
  }
  override canMerge(): boolean {
    return true;
  }
  override onMerge(window: TimeWindow, ctx: OnMergeContext): void {
    if (window.maxTimestamp() > ctx.getCurrentProcessingTime()) ctx.registerProcessingTimeTimer(window.maxTimestamp());
  }
  override clear(window: TimeWindow, ctx: TriggerContext): void {
    ctx.deleteProcessingTimeTimer(window.maxTimestamp());
  }
  override toString(): string {
    return 'ProcessingTimeTrigger';
  }
}

const sum = (a: number, b: number) => a + b;
const min = (a: number, b: number) => Math.min(a, b);

/** Fires every `maxCount` records of the window (Flink's CountTrigger); the count is per key and window. */
export class CountTrigger<W extends Window = Window> extends Trigger<unknown, W> {
  readonly #max: number;
  readonly #count = new ReducingStateDescriptor<number>('count', sum);
  private constructor(max: number) {
    super();
    this.#max = max;
  }
  static of<W extends Window = Window>(maxCount: number): CountTrigger<W> {
    if (!Number.isInteger(maxCount) || maxCount < 1) throw new TypeError(`CountTrigger.of needs a whole number >= 1, got ${maxCount}`);
    return new CountTrigger<W>(maxCount);
  }
  onElement(_e: unknown, _ts: number, _window: W, ctx: TriggerContext): TriggerResult {
    const count = ctx.getPartitionedState(this.#count);
    count.add(1);
    if (count.get()! >= this.#max) {
      count.clear();
      return 'FIRE';
    }
    return 'CONTINUE';
  }
  override canMerge(): boolean {
    return true;
  }
  override onMerge(_window: W, ctx: OnMergeContext): void {
    ctx.mergePartitionedState(this.#count as ReducingStateDescriptor<unknown>);
  }
  override clear(_window: W, ctx: TriggerContext): void {
    ctx.getPartitionedState(this.#count).clear();
  }
  override toString(): string {
    return `CountTrigger(${this.#max})`;
  }
}

/** Fires every `interval` of event time within the window, and at its end (Flink's ContinuousEventTimeTrigger). */
export class ContinuousEventTimeTrigger extends Trigger<unknown, TimeWindow> {
  readonly #interval: number;
  readonly #fireTime = new ReducingStateDescriptor<number>('fire-time', min);
  private constructor(interval: number) {
    super();
    this.#interval = interval;
  }
  static of(interval: DurationArg): ContinuousEventTimeTrigger {
    return new ContinuousEventTimeTrigger(durationArg(interval, 'ContinuousEventTimeTrigger.of', 'interval', true));
  }
  onElement(_e: unknown, timestamp: number, window: TimeWindow, ctx: TriggerContext): TriggerResult {
    if (window.maxTimestamp() <= ctx.getCurrentWatermark()) return 'FIRE';
    ctx.registerEventTimeTimer(window.maxTimestamp());
    const fireTime = ctx.getPartitionedState(this.#fireTime);
    if (fireTime.get() === undefined) this.#registerNext(timestamp - (((timestamp % this.#interval) + this.#interval) % this.#interval), window, ctx);
    return 'CONTINUE';
  }
  override onEventTime(time: number, window: TimeWindow, ctx: TriggerContext): TriggerResult {
    if (time === window.maxTimestamp()) return 'FIRE';
    const fireTime = ctx.getPartitionedState(this.#fireTime);
    if (fireTime.get() === time) {
      fireTime.clear();
      this.#registerNext(time, window, ctx);
      return 'FIRE';
    }
    return 'CONTINUE';
  }
  #registerNext(time: number, window: TimeWindow, ctx: TriggerContext): void {
    const next = Math.min(time + this.#interval, window.maxTimestamp());
    ctx.getPartitionedState(this.#fireTime).add(next);
    ctx.registerEventTimeTimer(next);
  }
  override canMerge(): boolean {
    return true;
  }
  override onMerge(_window: TimeWindow, ctx: OnMergeContext): void {
    ctx.mergePartitionedState(this.#fireTime as ReducingStateDescriptor<unknown>);
    const next = ctx.getPartitionedState(this.#fireTime).get();
    if (next !== undefined) ctx.registerEventTimeTimer(next);
  }
  override clear(_window: TimeWindow, ctx: TriggerContext): void {
    const fireTime = ctx.getPartitionedState(this.#fireTime);
    const t = fireTime.get();
    if (t !== undefined) {
      ctx.deleteEventTimeTimer(t);
      fireTime.clear();
    }
  }
  override toString(): string {
    return `ContinuousEventTimeTrigger(${this.#interval})`;
  }
}

/** Makes another trigger purge the window whenever it fires (Flink's PurgingTrigger). */
export class PurgingTrigger<T, W extends Window> extends Trigger<T, W> {
  readonly #nested: Trigger<T, W>;
  private constructor(nested: Trigger<T, W>) {
    super();
    this.#nested = nested;
  }
  static of<T, W extends Window>(nested: Trigger<T, W>): PurgingTrigger<T, W> {
    if (!(nested instanceof Trigger)) throw new TypeError('PurgingTrigger.of needs a Trigger');
    return new PurgingTrigger(nested);
  }
  onElement(e: T, ts: number, window: W, ctx: TriggerContext): TriggerResult {
    return purging(this.#nested.onElement(e, ts, window, ctx));
  }
  override onEventTime(time: number, window: W, ctx: TriggerContext): TriggerResult {
    return purging(this.#nested.onEventTime(time, window, ctx));
  }
  override onProcessingTime(time: number, window: W, ctx: TriggerContext): TriggerResult {
    return purging(this.#nested.onProcessingTime(time, window, ctx));
  }
  override canMerge(): boolean {
    return this.#nested.canMerge();
  }
  override onMerge(window: W, ctx: OnMergeContext): void {
    this.#nested.onMerge(window, ctx);
  }
  override clear(window: W, ctx: TriggerContext): void {
    this.#nested.clear(window, ctx);
  }
  override toString(): string {
    return `PurgingTrigger(${this.#nested.toString()})`;
  }
}

function purging(r: TriggerResult): TriggerResult {
  return r === 'FIRE' ? 'FIRE_AND_PURGE' : r;
}

/** Never fires (the default of GlobalWindows: give it a trigger of its own). */
export class NeverTrigger extends Trigger<unknown, Window> {
  static readonly INSTANCE = new NeverTrigger();
  onElement(): TriggerResult {
    return 'CONTINUE';
  }
  override canMerge(): boolean {
    return true;
  }
  override onMerge(): void {}
  override toString(): string {
    return 'NeverTrigger';
  }
}
