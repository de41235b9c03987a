import type { KeySelector } from '../../api/functions.ts';
import { TimeWindow } from '../../api/windowing/window.ts';
import type { WindowDefinition } from '../../api/windowing/window-definition.ts';
import type { FiredTimer } from '../timers/internal-timer-service.ts';
import { WindowOperatorBase } from './window-operator-base.ts';

/**
 * Sliding windows with their default trigger, kept as panes: a record goes into the one pane of
 * gcd(size, slide) ms it falls in (not into size/slide windows), and a window that fires is the
 * combination of its panes. The panes (`_window-panes`: per key, pane start -> contents) and the
 * timers (per window, named by its start: at its end - 1, and at its end - 1 + allowed lateness)
 * are keyed state. A pane goes when the last window it belongs to is cleaned up, which is the
 * window starting where the pane's slide starts.
 */
export class SlidingPaneWindowOperator extends WindowOperatorBase {
  readonly #size: number;
  readonly #slide: number;
  readonly #offset: number;
  readonly #pane: number;

  constructor(definition: WindowDefinition, keySelector: KeySelector<unknown>) {
    super(definition, keySelector);
    const p = definition.assigner.panes()!;
    this.#size = p.size;
    this.#slide = p.slide;
    this.#offset = p.offset;
    this.#pane = gcd(p.size, p.slide);
  }

  protected get contentsName(): string {
    return '_window-panes';
  }

  protected get perWindowState(): boolean {
    return true;
  }

  processElement(value: unknown): void {
    const t = this.isEventTime ? this.timestampOf(value) : this.ctx.processingTime.now();
    this.currentKey(value);
    const watermark = this.timers.currentWatermark;
    const size = this.#size;
    const slide = this.#slide;
    const lastStart = TimeWindow.getWindowStartWithOffset(t, this.#offset, slide);
    // The latest window of the record is the one cleaned up last: if it is gone, all are.
    if (this.isEventTime && lastStart + size - 1 + this.allowedLateness <= watermark) {
      this.lateRecord(value);
      return;
    }
    const pane = TimeWindow.getWindowStartWithOffset(t, this.#offset, this.#pane);
    const map = this.contents.value();
    const existing = map?.get(pane);
    const contents = this.aggregator.add(existing, value);
    if (map === undefined) this.contents.update(new Map([[pane, contents]]));
    else map.set(pane, contents);
    // A new pane: the timers of the windows it belongs to (a later record of the pane finds them).
    if (existing === undefined) for (let start = lastStart; start > t - size; start -= slide) this.#registerWindow(start, watermark);
    // Windows of the record that have fired already but are within the allowed lateness fire again.
    if (this.isEventTime && t <= watermark) {
      for (let start = lastStart; start > t - size; start -= slide) {
        const max = start + size - 1;
        if (max <= watermark && max + this.allowedLateness > watermark) this.#fire(start);
      }
    }
  }

  #registerWindow(start: number, watermark: number): void {
    const max = start + this.#size - 1;
    if (!this.isEventTime) {
      this.timers.registerProcessingTimeTimer(start, max);
      return;
    }
    const cleanup = max + this.allowedLateness;
    if (cleanup <= watermark) return;
    if (max > watermark) this.timers.registerEventTimeTimer(start, max);
    if (cleanup !== max) this.timers.registerEventTimeTimer(start, cleanup);
  }

  /** The window starting at `start`, from its panes. */
  #fire(start: number): void {
    const map = this.contents.value();
    if (map === undefined) return;
    const panes: unknown[] = [];
    for (let p = start; p < start + this.#size; p += this.#pane) {
      const c = map.get(p);
      if (c !== undefined) panes.push(c);
    }
    if (panes.length === 0) return;
    this.emit(new TimeWindow(start, start + this.#size), this.aggregator.combine(panes));
  }

  protected onEventTime(timer: FiredTimer): void {
    this.#onTimer(timer);
  }

  protected onProcessingTime(timer: FiredTimer): void {
    this.#onTimer(timer);
  }

  #onTimer(timer: FiredTimer): void {
    const start = timer.namespace as number;
    const max = start + this.#size - 1;
    if (timer.timestamp === max) this.#fire(start);
    if (timer.timestamp === (this.isEventTime ? max + this.allowedLateness : max)) {
      // No later window holds the panes of this window's first slide.
      for (let p = start; p < start + this.#slide; p += this.#pane) this.removeContents(p);
      this.clearWindowFunction(new TimeWindow(start, start + this.#size));
    }
  }
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}
