import { AsyncResource } from 'node:async_hooks';

/** What the scheduler runs: a task's bounded step, 'busy' while it has more to do. */
export interface Steppable {
  step(): string;
}

/** How long one slice of rounds runs before the thread goes back to the event loop. */
const SLICE_MS = 8;

/**
 * The scheduler of a slot's tasks: runs ready tasks in rounds, a slice at a time, each slice
 * after the event loop's timers and I/O callbacks of its turn (setImmediate), for a wake-up of an
 * idle slot as while tasks stay ready. Callbacks rather than an async loop: a loop that awaited a
 * new promise per wake-up cost a promise, a closure and an await per completion of an async
 * request. And a wake-up does not run a slice at once (in a microtask): the completions of a
 * turn's timers (an async operator's requests) then come as one batch of mails in one slice
 * instead of a slice each (the async benchmark, ordered: from 58% to 94% of capacity / latency).
 * The slice runs in the async context the scheduler was started in (the slot's owner for
 * in-thread TaskManagers), whoever wakes it.
 */
export class SlotScheduler {
  #ready = new Set<Steppable>();
  #slice: (() => void) | undefined;
  /** A slice is queued (setImmediate) and not yet run. */
  #scheduled = false;

  /** Starts scheduling (bound, the first time, to the async context slices are to run in) and runs what is ready. */
  start(): void {
    this.#slice ??= AsyncResource.bind(() => {
      try {
        this.#runSlice();
      } finally {
        if (this.#ready.size > 0) setImmediate(this.#slice!);
        else this.#scheduled = false;
      }
    });
    if (this.#ready.size > 0) this.#wake();
  }

  /** The task may have work: it runs in the next slice. */
  markReady(task: Steppable): void {
    this.#ready.add(task);
    this.#wake();
  }

  /** Forgets every ready task (they were cancelled). */
  clear(): void {
    this.#ready.clear();
  }

  #wake(): void {
    if (this.#scheduled || this.#slice === undefined) return;
    this.#scheduled = true;
    setImmediate(this.#slice);
  }

  /**
   * One slice of rounds. A function of its own so that nothing suspended keeps a reference to
   * the last round's tasks: after a failover those (and all their state) would otherwise stay
   * reachable while the next attempt restores its state.
   */
  #runSlice(): void {
    const sliceEnd = performance.now() + SLICE_MS;
    while (this.#ready.size > 0 && performance.now() < sliceEnd) {
      const round = [...this.#ready];
      this.#ready.clear();
      for (const task of round) {
        if (task.step() === 'busy') this.#ready.add(task);
      }
    }
  }
}
