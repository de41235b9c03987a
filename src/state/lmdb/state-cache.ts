import type { Key } from '../key-group.ts';

/** A cached entry of one key: its value as the handles work on it (undefined: the key has none). */
export interface CachedEntry {
  value: unknown;
  /** Changed since it was read from or written to the store (or read as an object, which its reader may change in place). */
  dirty: boolean;
  /**
   * Incremental checkpoints: changed since the last snapshot noted its key (markDirty). A delta
   * takes a dirty entry's value from the cache, so a hot key is not written to the store at
   * every checkpoint; this says whether the key goes into the changes the next delta writes.
   */
  changed: boolean;
  /** Read or written since the cache last made room: it gets a second chance instead of leaving. */
  used: boolean;
  readonly keyGroup: number;
}

/**
 * The decoded entries of one state that the lmdb backend keeps in memory, oldest first (a Map
 * keeps insertion order). Bounded by `limit`: when it grows past that, an eighth of the limit
 * leaves at once, so a miss does not pay for a write transaction each. Which entries leave is the
 * CLOCK rule (second chance), not strict LRU: a hit only marks its entry used, and making room
 * moves the used entries it meets to the end, unmarked, and takes the unused ones. A strict LRU
 * moved every hit's entry to the end (a Map delete and set), which was half of a cached keyed
 * sum's time per record (the state bench's hot phase).
 */
export class StateCache {
  readonly #entries = new Map<Key, CachedEntry>();
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: Key): CachedEntry | undefined {
    const entry = this.#entries.get(key);
    if (entry !== undefined) entry.used = true;
    return entry;
  }

  /** A key's entry without counting it as a use (it keeps its place). */
  peek(key: Key): CachedEntry | undefined {
    return this.#entries.get(key);
  }

  /**
   * Adds the entry of a key that missed; returns the entries that left to make room for it (the
   * caller writes the dirty ones back). The new entry is never among them.
   */
  add(key: Key, entry: CachedEntry): Array<[Key, CachedEntry]> | undefined {
    this.#entries.set(key, entry);
    if (this.#entries.size <= this.#limit) return undefined;
    const leaving: Array<[Key, CachedEntry]> = [];
    const count = this.#entries.size - this.#limit + Math.max(1, this.#limit >> 3);
    // A used entry goes to the end unmarked; the iteration meets it there again (a second round)
    // only when the first did not find enough unused ones. Never more than two rounds.
    for (const item of this.#entries) {
      if (leaving.length >= count) break;
      const [k, e] = item;
      if (e === entry) continue;
      this.#entries.delete(k);
      if (e.used) {
        e.used = false;
        this.#entries.set(k, e);
      } else leaving.push(item);
    }
    return leaving;
  }

  /** Every cached entry with its key. */
  entries(): IterableIterator<[Key, CachedEntry]> {
    return this.#entries.entries();
  }

  /** Every changed entry (they stay cached, clean once the caller has written them). */
  *dirty(): Generator<[Key, CachedEntry]> {
    for (const item of this.#entries) if (item[1].dirty) yield item;
  }

  clear(): void {
    this.#entries.clear();
  }
}
