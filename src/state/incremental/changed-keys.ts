import type { Key } from '../key-group.ts';
import { CHUNK, FIRST_COMPACTION } from './dirty-keys.ts';

/**
 * The keys a state table changed since its last snapshot, in the order they were noted, in
 * chunks of CHUNK (dirty-keys.ts says why not one growing array or a Set: a Set of 1M keys cost
 * ~90 ns an add, a chunk ~10). A key is noted once per entry and snapshot interval (the table
 * compares versions), and again only when its entry is removed (addRemoved) or made again after
 * that, so `size` counts notes, not distinct keys: at most the distinct keys plus twice the
 * removals.
 *
 * A log past FIRST_COMPACTION notes is made distinct (and then again each time it doubles) only
 * when removals are at least a quarter of its notes: otherwise it is within twice its distinct
 * keys already, and making a log of 1M distinct keys distinct would cost the task thread a Set of
 * 1M keys (~100 ms) for nothing.
 */
export class ChangedKeys implements Iterable<Key> {
  readonly #chunks: Key[][] = [];
  #chunk: Key[] = new Array<Key>(CHUNK);
  #n = 0;
  #compactAt = FIRST_COMPACTION;
  /** Notes of removed entries since the log was last made distinct. */
  #removals = 0;

  get size(): number {
    return this.#chunks.length * CHUNK + this.#n;
  }

  add(key: Key): void {
    if (this.#n === CHUNK) this.#seal();
    this.#chunk[this.#n++] = key;
    if (this.#n === CHUNK && this.size >= this.#compactAt && 4 * this.#removals >= this.size) this.#compact();
  }

  /** A key whose entry was removed. */
  addRemoved(key: Key): void {
    this.#removals++;
    this.add(key);
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
    this.#removals = 0;
    for (const key of distinct) this.add(key);
    this.#compactAt = Math.max(FIRST_COMPACTION, 2 * this.size);
  }
}
