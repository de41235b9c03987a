/**
 * Time as the coordinator and the workers see it: the wall clock in milliseconds and one-shot
 * timers. Protocol parts take a Clock so that their tests run on a manual one.
 */
export interface Clock {
  now(): number;
  /**
   * Calls `fn` once after `delayMs`; a pending timer keeps the process alive, as setTimeout does,
   * unless `keepAlive` is false (a timer whose work matters only while something else runs).
   */
  schedule(fn: () => void, delayMs: number, options?: { readonly keepAlive?: boolean }): Timer;
}

export interface Timer {
  cancel(): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  schedule(fn, delayMs, options) {
    const t = setTimeout(fn, delayMs);
    if (options?.keepAlive === false) t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};
