/**
 * Time as the coordinator and the workers see it: the wall clock in milliseconds and one-shot
 * timers. Protocol parts take a Clock so that their tests run on a manual one.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` once after `delayMs`; a pending timer keeps the process alive, as setTimeout does. */
  schedule(fn: () => void, delayMs: number): Timer;
}

export interface Timer {
  cancel(): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  schedule(fn, delayMs) {
    const t = setTimeout(fn, delayMs);
    return { cancel: () => clearTimeout(t) };
  },
};
