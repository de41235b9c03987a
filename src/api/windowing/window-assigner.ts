import type { Trigger } from './trigger.ts';
import { GlobalWindow, TimeWindow, type Window } from './window.ts';

export interface WindowAssignerContext {
  currentProcessingTime(): number;
}

/** What a window is stored and timed under within its key: a number or string that names it. */
export type WindowKey = number | string;

/**
 * Puts a record into windows (Flink's WindowAssigner). weir also asks it how a window is named in
 * state and timers (`windowKey`) and back (`windowOf`): TimeWindows and the GlobalWindow have
 * names already; an assigner of other windows says how.
 */
export abstract class WindowAssigner<T, W extends Window> {
  abstract assignWindows(element: T, timestamp: number, context: WindowAssignerContext): W[];
  abstract getDefaultTrigger(): Trigger<T, W>;
  abstract isEventTime(): boolean;
  abstract toString(): string;

  windowKey(window: W): WindowKey {
    if (window instanceof TimeWindow) return window.windowKey();
    if (window instanceof GlobalWindow) return 0;
    throw new TypeError(`${this.toString()}: windows of type ${window.constructor.name} need windowKey() and windowOf() of their assigner`);
  }

  windowOf(key: WindowKey): W {
    if (key === 0) return GlobalWindow.INSTANCE as unknown as W;
    if (typeof key === 'string') return TimeWindow.ofWindowKey(key) as unknown as W;
    throw new TypeError(`${this.toString()}: cannot make a window of ${JSON.stringify(key)}`);
  }

  /**
   * Sliding windows made of panes (weir): a record goes into one pane of `pane` ms, and a window
   * of `size` starting every `slide` ms is the combination of its panes. Undefined: each record
   * goes into each of its windows.
   */
  panes(): { readonly size: number; readonly slide: number; readonly offset: number } | undefined {
    return undefined;
  }
}

/** Windows that merge (sessions): Flink's MergingWindowAssigner. */
export abstract class MergingWindowAssigner<T, W extends Window> extends WindowAssigner<T, W> {
  /** Calls `merge(toBeMerged, result)` for every group of windows that become one. */
  abstract mergeWindows(windows: readonly W[], merge: (toBeMerged: W[], mergeResult: W) => void): void;
}

/** Merges overlapping (or touching) TimeWindows, as Flink's TimeWindow.mergeWindows. */
export function mergeTimeWindows(windows: readonly TimeWindow[], merge: (toBeMerged: TimeWindow[], mergeResult: TimeWindow) => void): void {
  const sorted = [...windows].sort((a, b) => a.start - b.start);
  let current: { cover: TimeWindow; members: TimeWindow[] } | undefined;
  const flush = () => {
    if (current && current.members.length > 1) merge(current.members, current.cover);
  };
  for (const w of sorted) {
    if (current === undefined) current = { cover: w, members: [w] };
    else if (current.cover.intersects(w)) {
      current.cover = current.cover.cover(w);
      current.members.push(w);
    } else {
      flush();
      current = { cover: w, members: [w] };
    }
  }
  flush();
}
