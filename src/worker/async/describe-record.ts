import { inspect } from 'node:util';

const MAX = 200;

/** A record as an error message shows it: short, whatever its type. */
export function describeRecord(record: unknown): string {
  const text = inspect(record, { depth: 3, breakLength: Infinity, maxStringLength: MAX });
  return text.length > MAX ? `${text.slice(0, MAX)}…` : text;
}
