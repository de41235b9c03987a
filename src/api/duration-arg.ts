import { parseDuration } from '../config/duration.ts';

/** A span of time as the API takes it: milliseconds, or a duration such as '5 s' or '1 min'. */
export type DurationArg = number | string;

/** Milliseconds of a DurationArg; a bad one is a TypeError naming the call and the argument. */
export function durationArg(value: DurationArg, call: string, argument: string, positive = false): number {
  const ms = typeof value === 'number' || typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined || (positive && ms <= 0)) {
    throw new TypeError(`${call}: ${argument} must be ${positive ? 'more than 0' : '0 or more'} ms (a number, or a duration such as '5 s'), got ${JSON.stringify(value) ?? String(value)}`);
  }
  return ms;
}
