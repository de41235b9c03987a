/**
 * The numbers in task, channel and channel state keys (subtask indexes, edge ids, channels):
 * non-negative integers, written as `${n}` writes them.
 */
export function isKeyIndex(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/**
 * The number a key part spells, or undefined. Only the digits `${n}` writes count (no sign,
 * blank, exponent or leading zero), so that a key read back is the key that was built.
 */
export function readKeyIndex(text: string): number | undefined {
  if (!/^(?:0|[1-9]\d*)$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}
