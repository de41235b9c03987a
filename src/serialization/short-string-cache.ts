import { readAsciiShort } from './read-ascii-short.ts';

/**
 * Decoded short ASCII strings, remembered by their bytes, so that the same bytes decode to the
 * same string. Fresh strings cost three times: the allocation (and its garbage), hashing when a
 * Map looks them up (a string hashes once, on first use), and comparing characters when a Map
 * finds an equal key that is not the same string. In the word count at parallelism 2 every
 * record that crossed a ring brought a fresh word: the keyed fold's lookup cost twice what it
 * cost at parallelism 1, and collection three times as much.
 *
 * Direct-mapped and exact: a slot holds the string and its bytes packed into three int32 words
 * plus its length, so a hit is five integer comparisons and no character is read twice. A miss
 * replaces the slot (high-cardinality strings pay a hash and a store, ~3 ns). Per thread (module
 * state), which is what a task's inputs share.
 */
export const CACHED_STRING_MAX = 12;
/** Bytes cachedAscii reads from p on, whatever n is: the caller checks they exist. */
export const CACHED_STRING_READ = 12;

const SLOTS = 8192;
const strings: Array<string | undefined> = new Array<string | undefined>(SLOTS).fill(undefined);
const words = new Int32Array(SLOTS * 4).fill(-1);
const MASK = new Int32Array([0, 0xff, 0xffff, 0xffffff, -1]);

/**
 * The string of the n <= 12 bytes at p when they are ASCII, else undefined. Reads 12 bytes
 * whatever n is (`p + 12 <= view.byteLength`), masking off those beyond n.
 */
export function cachedAscii(view: DataView, buf: Uint8Array, p: number, n: number): string | undefined {
  let w0 = view.getInt32(p, true);
  let w1 = view.getInt32(p + 4, true);
  let w2 = view.getInt32(p + 8, true);
  if (n < 12) {
    if (n > 8) w2 &= MASK[n - 8]!;
    else {
      w2 = 0;
      if (n > 4) w1 &= MASK[n - 4]!;
      else {
        w1 = 0;
        w0 &= MASK[n]!;
      }
    }
  }
  if (((w0 | w1 | w2) & 0x80808080) !== 0) return undefined;
  let h = Math.imul(w0, 0x9e3779b1) ^ Math.imul(w1 ^ n, 0x85ebca77) ^ Math.imul(w2, 0xc2b2ae3d);
  h ^= h >>> 15;
  const slot = h & (SLOTS - 1);
  const i = slot << 2;
  if (words[i] === w0 && words[i + 1] === w1 && words[i + 2] === w2 && words[i + 3] === n) return strings[slot];
  const s = readAsciiShort(buf, p, n)!;
  words[i] = w0;
  words[i + 1] = w1;
  words[i + 2] = w2;
  words[i + 3] = n;
  strings[slot] = s;
  return s;
}
