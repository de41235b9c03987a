import type { Clock } from '../clock/clock.ts';
import { systemClock } from '../clock/clock.ts';

/**
 * Milliseconds that never go back (performance.now from the process start, on the epoch scale):
 * a lease judged by the wall clock would end early or late when NTP steps it.
 */
export const monotonicClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  schedule: systemClock.schedule,
};
