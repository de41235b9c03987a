import { parseDuration } from '../../config/duration.ts';
import { GraphValidationError } from '../../graph/graph-validation-error.ts';
import { callerLocation } from '../caller-location.ts';
import type { DurationArg } from '../duration-arg.ts';

/**
 * A window's size, slide or gap in ms: more than 0, or a GraphValidationError naming the call and
 * where the job built it (the line in the job module).
 */
export function windowSpan(value: DurationArg, call: string, what: string): number {
  const ms = typeof value === 'number' ? (Number.isFinite(value) ? value : undefined) : typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined || ms <= 0) {
    throw new GraphValidationError(`${call}: the ${what} must be more than 0 ms (a number, or a duration such as '5 s'), got ${JSON.stringify(value) ?? String(value)}`, undefined, callerLocation());
  }
  return ms;
}

/** A window offset: any finite number of ms (negative ones shift windows back, e.g. for time zones), less than `within` in size. */
export function windowOffset(value: DurationArg, within: number, call: string): number {
  const negative = typeof value === 'string' && value.trim().startsWith('-');
  const parsed = typeof value === 'number' ? value : parseDuration(negative ? value.trim().slice(1) : value);
  const ms = parsed === undefined ? undefined : negative ? -parsed : parsed;
  if (ms === undefined || !Number.isFinite(ms) || Math.abs(ms) >= within) {
    throw new GraphValidationError(`${call}: the offset must be a number of ms with |offset| < ${within}, got ${JSON.stringify(value) ?? String(value)}`, undefined, callerLocation());
  }
  return ms;
}
