import { JavaRandom } from './java-random.ts';

const MIN_STRING_LENGTH = 3;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Beam's nextString: 3..maxLength-1 letters, about one in 13 the `special` character, trimmed. */
export function nextString(random: JavaRandom, maxLength: number, special = ' '): string {
  let len = MIN_STRING_LENGTH + random.nextIntBelow(maxLength - MIN_STRING_LENGTH);
  let s = '';
  while (len-- > 0) s += random.nextIntBelow(13) === 0 ? special : LETTERS[random.nextIntBelow(26)]!;
  return special === ' ' ? s.trim() : s;
}

/**
 * The padding of records ("extra"): slices of one fixed seeded text, as the Flink port does, so a
 * record costs one draw instead of one per character (Beam draws every character).
 */
const REUSABLE_LENGTH = 1 << 20;
let reusable: string | undefined;

function reusableText(): string {
  if (reusable === undefined) {
    const r = new JavaRandom(0x6e65786d);
    const bytes = Buffer.allocUnsafe(REUSABLE_LENGTH);
    for (let i = 0; i < REUSABLE_LENGTH; i++) bytes[i] = 97 + r.nextIntBelow(26);
    reusable = bytes.toString('latin1');
  }
  return reusable;
}

export function nextExactString(random: JavaRandom, length: number): string {
  const text = reusableText();
  const offset = random.nextIntBelow(text.length - length);
  return text.slice(offset, offset + length);
}

/** A string such that currentSize + its length is on average desiredAverageSize (Beam's nextExtra). */
export function nextExtra(random: JavaRandom, currentSize: number, desiredAverageSize: number): string {
  if (currentSize > desiredAverageSize) return '';
  const rest = desiredAverageSize - currentSize;
  const delta = Math.round(rest * 0.2);
  const size = rest - delta + (delta === 0 ? 0 : random.nextIntBelow(2 * delta));
  return nextExactString(random, size);
}

/** Beam's nextPrice: 100 * 10^(6u), log-uniform over cents. */
export function nextPrice(random: JavaRandom): number {
  return Math.round(Math.pow(10, random.nextDouble() * 6) * 100);
}

/** Beam's LongGenerator.nextLong: uniform below n (Java's skewed fallback above 2^31). */
export function nextLongBelow(random: JavaRandom, n: number): number {
  if (n < 2147483647) return random.nextIntBelow(n);
  const v = random.nextLong() % BigInt(n);
  return Number(v < 0n ? -v : v);
}
