import type { Key } from '../key-group.ts';
import { CHUNK, FIRST_COMPACTION } from './dirty-keys.ts';

/**
 * The keys a state table changed since its last snapshot, in the order they were noted, in
 * chunks of CHUNK (dirty-keys.ts says why not one growing array or a Set: a Set of 1M keys cost
 * ~90 ns an add, a chunk ~10). A key is noted once per entry and snapshot interval (the table
 * compares versions), and again only when its entry was removed and made again, so `size` counts
 * notes, not distinct keys: the same or a little more. A log past FIRST_COMPACTION notes is made
 * distinct, and then each time it doubles, so churn of the same keys keeps it within about twice
 * its distinct keys (or FIRST_COMPACTION).
 */
export class ChangedKeys implements Iterable<Key> {
  readonly #chunks: Key[][] = [];
  #chunk: Key[] = new Array<Key>(CHUNK);
  #n = 0;
  #compactAt = FIRST_COMPACTION;

  get size(): number {
    return this.#chunks.length * CHUNK + this.#n;
  }

  add(key: Key): void {
    if (this.#n === CHUNK) this.#seal();
    this.#chunk[this.#n++] = key;
    if (this.#n === CHUNK && this.size >= this.#compactAt) this.#compact();
  }

  *[Symbol.iterator](): Iterator<Key> {
    for (const chunk of this.#chunks) yield* chunk;
    for (let i = 0; i < this.#n; i++) yield this.#chunk[i]!;
  }

  #seal(): void {
    this.#chunks.push(this.#chunk);
    this.#chunk = new Array<Key>(CHUNK);
    this.#n = 0;
  }

  #compact(): void {
    const distinct = new Set(this);
    this.#chunks.length = 0;
    this.#n = 0;
    this.#compactAt = Infinity;
    for (const key of distinct) this.add(key);
    this.#compactAt = Math.max(FIRST_COMPACTION, 2 * this.size);
  }
}
