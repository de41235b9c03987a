/**
 * Deterministic words: the word at position i depends only on (seed, i), so a reader can seek to
 * any position in O(1) after a restore, and a hand-written loop can produce the same input.
 * Frequencies follow a Zipf-like curve over a fixed vocabulary, as word counts in real text do.
 */
const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'ne', 'to', 'su', 'vi', 'de', 'po', 'an', 'el', 'or', 'us', 'ix', 'qu'];

export const DEFAULT_VOCABULARY_SIZE = 1000;

export function buildVocabulary(size: number): string[] {
  const words: string[] = [];
  for (let i = 0; i < size; i++) {
    let n = i;
    let w = '';
    do {
      w += SYLLABLES[n % SYLLABLES.length];
      n = Math.floor(n / SYLLABLES.length);
    } while (n > 0);
    words.push(w);
  }
  return words;
}

/** splitmix32-style finalizer of (seed, index): a uniform 32-bit value per position. */
export function hashPosition(seed: number, index: number): number {
  let x = (Math.imul(index, 0x9e3779b9) ^ Math.imul(seed, 0x85ebca6b)) >>> 0;
  x ^= Math.floor(index / 4294967296);
  x = Math.imul(x ^ (x >>> 16), 0x21f0aaad);
  x = Math.imul(x ^ (x >>> 15), 0x735a2d97);
  return (x ^ (x >>> 15)) >>> 0;
}

export class WordGenerator {
  readonly seed: number;
  readonly vocabulary: readonly string[];
  /** Cumulative Zipf weights scaled to 2^32, for a binary search per word. */
  readonly #cdf: Float64Array;

  constructor(seed: number, vocabularySize = DEFAULT_VOCABULARY_SIZE) {
    this.seed = seed;
    this.vocabulary = buildVocabulary(vocabularySize);
    const weights = this.vocabulary.map((_, rank) => 1 / (rank + 1));
    const total = weights.reduce((a, b) => a + b, 0);
    this.#cdf = new Float64Array(weights.length);
    let acc = 0;
    for (let i = 0; i < weights.length; i++) {
      acc += weights[i]!;
      this.#cdf[i] = (acc / total) * 4294967296;
    }
  }

  wordAt(index: number): string {
    const u = hashPosition(this.seed, index);
    const cdf = this.#cdf;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! <= u) lo = mid + 1;
      else hi = mid;
    }
    return this.vocabulary[lo]!;
  }
}
