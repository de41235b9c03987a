import type { Key } from '../../state/key-group.ts';

/** A timer as the queue holds it: the state of its key says whether it is still registered. */
export interface QueuedTimer {
  readonly timestamp: number;
  readonly key: Key;
  readonly namespace: TimerNamespace;
  /** Registration order: timers of one timestamp fire in the order they were registered. */
  readonly seq: number;
}

/** What a timer belongs to within its key: null for a process function's own, a window's key for a window operator's. */
export type TimerNamespace = number | string | null;

/** A binary min-heap of timers by (timestamp, registration order). */
export class TimerHeap {
  #items: QueuedTimer[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): QueuedTimer | undefined {
    return this.#items[0];
  }

  push(t: QueuedTimer): void {
    const items = this.#items;
    items.push(t);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(t, items[parent]!)) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = t;
  }

  pop(): QueuedTimer | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.#down(0);
    }
    return top;
  }

  /** Replaces the contents at once (a restore): O(n). */
  reset(timers: QueuedTimer[]): void {
    this.#items = timers;
    for (let i = (timers.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  #down(i: number): void {
    const items = this.#items;
    const n = items.length;
    const t = items[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && before(items[r]!, items[l]!) ? r : l;
      if (!before(items[c]!, t)) break;
      items[i] = items[c]!;
      i = c;
    }
    items[i] = t;
  }
}

function before(a: QueuedTimer, b: QueuedTimer): boolean {
  return a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.seq < b.seq);
}
