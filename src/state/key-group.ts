/**
 * Keys map to key groups, key groups to subtasks (DESIGN §6). The hash is murmur3 (x86, 32 bit)
 * over a canonical form of the key, so the assignment is stable across processes, threads,
 * restarts and weir versions: a savepoint's key groups stay valid when the job is rescaled.
 */

export { DEFAULT_MAX_PARALLELISM, UPPER_BOUND_MAX_PARALLELISM } from '../config/parallelism-bounds.ts';

/** A key as weir sees it: primitives, or arrays of primitives for composite keys. */
export type Key = string | number | bigint | boolean | null | undefined | readonly Key[];

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

function mixK(k: number): number {
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

function mixH(h: number, k: number): number {
  h ^= mixK(k);
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

function fmix(h: number, length: number): number {
  h ^= length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** murmur3 over the UTF-16 code units of a string, two units per 32-bit block. */
export function murmurString(s: string, seed = 0): number {
  return murmurStringModulo(s, seed, 0x100000000);
}

/**
 * murmurString(s, seed) % modulo. The hash is an unsigned 32-bit number, which V8 boxes into a
 * heap number when it leaves a function it was not inlined into (above 2^30: three hashes in four);
 * a key group is small, so keyGroupFor's paths take the modulo before they return.
 */
function murmurStringModulo(s: string, seed: number, modulo: number): number {
  let h = seed | 0;
  const n = s.length;
  let i = 0;
  for (; i + 1 < n; i += 2) h = mixH(h, s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16));
  if (i < n) h ^= mixK(s.charCodeAt(i));
  return fmix(h, n * 2) % modulo;
}

/** Each number below 100 as the two UTF-16 units of its two decimal digits, in one murmur block. */
const DIGIT_PAIRS = Int32Array.from({ length: 100 }, (_, n) => (48 + Math.floor(n / 10)) | ((48 + (n % 10)) << 16));
const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000];

/** Whether a number is an integer from 0 to 2^31 - 1: the keys hashNonNegativeInt31 takes. */
function isNonNegativeInt31(n: number): boolean {
  return n >>> 0 === n && n <= 0x7fffffff;
}

/**
 * murmurString(String(v), 0x6e) for an integer 0 <= v < 2^31, without making the string: keys are
 * ids far more often than not, and String() of a number V8 has not cached costs an allocation and
 * about twice this whole hash (scratch measurement over 1M distinct keys below 10^6: ~29 against
 * ~58 ns; the same for a few thousand keys, which V8's number-string cache holds).
 */
function hashNonNegativeInt31(v: number, modulo: number): number {
  const digits = v < 100000 ? (v < 10 ? 1 : v < 100 ? 2 : v < 1000 ? 3 : v < 10000 ? 4 : 5) : v < 1000000 ? 6 : v < 10000000 ? 7 : v < 100000000 ? 8 : v < 1000000000 ? 9 : 10;
  let h = 0x6e;
  let rest = v;
  // Two digits a block from the left, as the string's units pair up; an odd last digit alone.
  let p = digits - 2;
  for (; p >= 0; p -= 2) {
    const power = POWERS_OF_TEN[p]!;
    const pair = (rest / power) | 0;
    rest -= pair * power;
    h = mixH(h, DIGIT_PAIRS[pair]!);
  }
  if (p === -1) h ^= mixK(48 + rest);
  return fmix(h, digits * 2) % modulo;
}

/** Stable 32-bit hash of a key. Type tags keep `1` and `"1"` apart. */
export function hashKey(key: Key): number {
  switch (typeof key) {
    case 'string':
      return murmurString(key);
    case 'number':
      if (isNonNegativeInt31(key)) return hashNonNegativeInt31(key, 0x100000000);
      return murmurString(Number.isInteger(key) ? String(key) : key.toString(), 0x6e);
    case 'bigint':
      return murmurString(key.toString(), 0x6e);
    case 'boolean':
      return murmurString(key ? 't' : 'f', 0x62);
    case 'undefined':
      return murmurString('', 0x75);
    case 'object':
      if (key === null) return murmurString('', 0x75);
      if (Array.isArray(key)) {
        let h = 0x61;
        for (const part of key) h = mixH(h, hashKey(part));
        return fmix(h, key.length * 4);
      }
  }
  throw new TypeError(`unsupported key type ${typeof key}: keys must be strings, numbers, bigints, booleans or arrays of them`);
}

export function keyGroupFor(key: Key, maxParallelism: number): number {
  // The two common keys take the modulo inside, so no heap number is made (see murmurStringModulo).
  if (typeof key === 'string') return murmurStringModulo(key, 0, maxParallelism);
  if (typeof key === 'number' && isNonNegativeInt31(key)) return hashNonNegativeInt31(key, maxParallelism);
  return hashKey(key) % maxParallelism;
}

/** The subtask that owns a key group: floor(keyGroup * parallelism / maxParallelism). */
export function operatorIndexForKeyGroup(keyGroup: number, parallelism: number, maxParallelism: number): number {
  return Math.floor((keyGroup * parallelism) / maxParallelism);
}

/** A contiguous, inclusive range of key groups owned by one subtask. */
export interface KeyGroupRange {
  readonly start: number;
  readonly end: number;
}

export function keyGroupRangeForSubtask(subtask: number, parallelism: number, maxParallelism: number): KeyGroupRange {
  // The inverse of operatorIndexForKeyGroup, as Flink's KeyGroupRangeAssignment computes it.
  const start = Math.ceil((subtask * maxParallelism) / parallelism);
  const end = Math.ceil(((subtask + 1) * maxParallelism) / parallelism) - 1;
  return { start, end };
}

export function keyGroupRangeSize(range: KeyGroupRange): number {
  return range.end - range.start + 1;
}
