import type { DurationArg } from '../duration-arg.ts';
import type { Trigger } from './trigger.ts';
import { EventTimeTrigger, NeverTrigger, ProcessingTimeTrigger } from './triggers.ts';
import { GlobalWindow, TimeWindow, type Window } from './window.ts';
import { mergeTimeWindows, MergingWindowAssigner, WindowAssigner, type WindowAssignerContext, type WindowKey } from './window-assigner.ts';
import { windowOffset, windowSpan } from './window-span.ts';

/** Windows of a fixed size are named by their start alone. */
abstract class FixedSizeWindows extends WindowAssigner<unknown, TimeWindow> {
  readonly size: number;
  readonly offset: number;
  constructor(size: number, offset: number) {
    super();
    this.size = size;
    this.offset = offset;
  }
  override windowKey(window: TimeWindow): WindowKey {
    return window.start;
  }
  override windowOf(key: WindowKey): TimeWindow {
    return new TimeWindow(key as number, (key as number) + this.size);
  }
}

abstract class Tumbling extends FixedSizeWindows {
  assignWindows(_e: unknown, timestamp: number, ctx: WindowAssignerContext): TimeWindow[] {
    const t = this.isEventTime() ? timestamp : ctx.currentProcessingTime();
    const start = TimeWindow.getWindowStartWithOffset(t, this.offset, this.size);
    return [new TimeWindow(start, start + this.size)];
  }
}

/** Back-to-back windows of `size` in event time (Flink's TumblingEventTimeWindows), shifted by `offset`. */
export class TumblingEventTimeWindows extends Tumbling {
  static of(size: DurationArg, offset: DurationArg = 0): TumblingEventTimeWindows {
    const s = windowSpan(size, 'TumblingEventTimeWindows.of', 'window size');
    return new TumblingEventTimeWindows(s, windowOffset(offset, s, 'TumblingEventTimeWindows.of'));
  }
  isEventTime(): boolean {
    return true;
  }
  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return EventTimeTrigger.INSTANCE;
  }
  toString(): string {
    return `TumblingEventTimeWindows(${this.size})`;
  }
}

/** Back-to-back windows of `size` in processing time (Flink's TumblingProcessingTimeWindows). */
export class TumblingProcessingTimeWindows extends Tumbling {
  static of(size: DurationArg, offset: DurationArg = 0): TumblingProcessingTimeWindows {
    const s = windowSpan(size, 'TumblingProcessingTimeWindows.of', 'window size');
    return new TumblingProcessingTimeWindows(s, windowOffset(offset, s, 'TumblingProcessingTimeWindows.of'));
  }
  isEventTime(): boolean {
    return false;
  }
  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return ProcessingTimeTrigger.INSTANCE;
  }
  toString(): string {
    return `TumblingProcessingTimeWindows(${this.size})`;
  }
}

abstract class Sliding extends FixedSizeWindows {
  readonly slide: number;
  constructor(size: number, slide: number, offset: number) {
    super(size, offset);
    this.slide = slide;
  }
  assignWindows(_e: unknown, timestamp: number, ctx: WindowAssignerContext): TimeWindow[] {
    const t = this.isEventTime() ? timestamp : ctx.currentProcessingTime();
    const windows: TimeWindow[] = [];
    for (let start = TimeWindow.getWindowStartWithOffset(t, this.offset, this.slide); start > t - this.size; start -= this.slide) windows.push(new TimeWindow(start, start + this.size));
    return windows;
  }
  override panes(): { size: number; slide: number; offset: number } {
    return { size: this.size, slide: this.slide, offset: this.offset };
  }
}

function slidingArgs(call: string, size: DurationArg, slide: DurationArg, offset: DurationArg): [number, number, number] {
  const s = windowSpan(size, call, 'window size');
  const sl = windowSpan(slide, call, 'slide');
  return [s, sl, windowOffset(offset, sl, call)];
}

/**
 * Windows of `size` starting every `slide` in event time (Flink's SlidingEventTimeWindows). With
 * the default trigger weir keeps one pane per slide (of gcd(size, slide)), not a copy of every
 * record per window, and combines a window's panes when it fires.
 */
export class SlidingEventTimeWindows extends Sliding {
  static of(size: DurationArg, slide: DurationArg, offset: DurationArg = 0): SlidingEventTimeWindows {
    return new SlidingEventTimeWindows(...slidingArgs('SlidingEventTimeWindows.of', size, slide, offset));
  }
  isEventTime(): boolean {
    return true;
  }
  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return EventTimeTrigger.INSTANCE;
  }
  toString(): string {
    return `SlidingEventTimeWindows(${this.size}, ${this.slide})`;
  }
}

export class SlidingProcessingTimeWindows extends Sliding {
  static of(size: DurationArg, slide: DurationArg, offset: DurationArg = 0): SlidingProcessingTimeWindows {
    return new SlidingProcessingTimeWindows(...slidingArgs('SlidingProcessingTimeWindows.of', size, slide, offset));
  }
  isEventTime(): boolean {
    return false;
  }
  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return ProcessingTimeTrigger.INSTANCE;
  }
  toString(): string {
    return `SlidingProcessingTimeWindows(${this.size}, ${this.slide})`;
  }
}

abstract class Sessions extends MergingWindowAssigner<unknown, TimeWindow> {
  readonly gap: number;
  constructor(gap: number) {
    super();
    this.gap = gap;
  }
  assignWindows(_e: unknown, timestamp: number, ctx: WindowAssignerContext): TimeWindow[] {
    const t = this.isEventTime() ? timestamp : ctx.currentProcessingTime();
    return [new TimeWindow(t, t + this.gap)];
  }
  mergeWindows(windows: readonly TimeWindow[], merge: (toBeMerged: TimeWindow[], mergeResult: TimeWindow) => void): void {
    mergeTimeWindows(windows, merge);
  }
}

/** A window per burst of a key's records, closed after `gap` without one (Flink's EventTimeSessionWindows). */
export class EventTimeSessionWindows extends Sessions {
  static withGap(gap: DurationArg): EventTimeSessionWindows {
    return new EventTimeSessionWindows(windowSpan(gap, 'EventTimeSessionWindows.withGap', 'session gap'));
  }
  isEventTime(): boolean {
    return true;
  }
  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return EventTimeTrigger.INSTANCE;
  }
  toString(): string {
    return `EventTimeSessionWindows(${this.gap})`;
  }
}

export class ProcessingTimeSessionWindows extends Sessions {
  static withGap(gap: DurationArg): ProcessingTimeSessionWindows {
    return new ProcessingTimeSessionWindows(windowSpan(gap, 'ProcessingTimeSessionWindows.withGap', 'session gap'));
  }
  isEventTime(): boolean {
    return false;
  }
  getDefaultTrigger(): Trigger<unknown, TimeWindow> {
    return ProcessingTimeTrigger.INSTANCE;
  }
  toString(): string {
    return `ProcessingTimeSessionWindows(${this.gap})`;
  }
}

/** One window per key holding everything (Flink's GlobalWindows): it fires only by a trigger given with `.trigger(...)`. */
export class GlobalWindows extends WindowAssigner<unknown, GlobalWindow> {
  static create(): GlobalWindows {
    return new GlobalWindows();
  }
  assignWindows(): GlobalWindow[] {
    return [GlobalWindow.INSTANCE];
  }
  getDefaultTrigger(): Trigger<unknown, GlobalWindow> {
    return NeverTrigger.INSTANCE as Trigger<unknown, Window> as Trigger<unknown, GlobalWindow>;
  }
  isEventTime(): boolean {
    return false;
  }
  toString(): string {
    return 'GlobalWindows';
  }
}
