import type { Key } from './key-group.ts';

/**
 * One keyed state's entries, one Map per key group the subtask owns.
 *
 * Snapshots are copy-on-write: the synchronous part only records a version number, so its cost
 * does not grow with the state. Until the asynchronous writer has passed an entry, the first
 * write to it (or the first read of a mutable value, which the caller might mutate in place)
 * saves the old value aside for the snapshot. Entries created after the snapshot carry a newer
 * version and are skipped by it.
 */
export interface Entry<V> {
  value: V;
  version: number;
  /** The version of the snapshot that has already written this entry out. */
  written: number;
}

const ABSENT = Symbol('absent');

export interface TableSnapshot<V> {
  /** Entries of one key group as they were when the snapshot was taken, in slices of at most `slice` entries. */
  keyGroupSlices(keyGroupIndex: number, slice: number): Generator<Array<[Key, V]>>;
  release(): void;
}

export class StateTable<V> {
  readonly maps: Map<Key, Entry<V>>[];
  #copy: (value: V) => V;
  #version = 1;
  #active: ActiveSnapshot<V> | undefined;

  constructor(keyGroups: number, copy: (value: V) => V) {
    this.maps = Array.from({ length: keyGroups }, () => new Map());
    this.#copy = copy;
  }

  /** Restored tables get the copy function of their descriptor once the operator registers it. */
  useCopy(copy: (value: V) => V): void {
    this.#copy = copy;
  }

  get(kg: number, key: Key): V | undefined {
    const entry = this.maps[kg]!.get(key);
    if (entry === undefined) return undefined;
    const snap = this.#active;
    if (snap !== undefined && entry.version <= snap.version && entry.written !== snap.version && typeof entry.value === 'object' && entry.value !== null) {
      // The caller may mutate what it reads: keep the snapshot's object, hand out a copy.
      snap.saveOld(kg, key, entry.value);
      entry.value = this.#copy(entry.value);
      entry.version = this.#version;
    }
    return entry.value;
  }

  /**
   * Folds a value into a key's entry with one lookup: the entry becomes `value` when absent, else
   * `fn(current, value)`. `fn` may return a new object or change `current` in place.
   */
  reduce(kg: number, key: Key, value: V, fn: (current: V, value: V) => V): V {
    const map = this.maps[kg]!;
    const entry = map.get(key);
    if (entry === undefined) {
      map.set(key, { value, version: this.#version, written: 0 });
      return value;
    }
    const snap = this.#active;
    let current = entry.value;
    if (snap !== undefined && entry.version <= snap.version && entry.written !== snap.version) {
      snap.saveOld(kg, key, current);
      if (typeof current === 'object' && current !== null) current = this.#copy(current);
    }
    const next = fn(current, value);
    entry.value = next;
    entry.version = this.#version;
    return next;
  }

  put(kg: number, key: Key, value: V): void {
    const map = this.maps[kg]!;
    const entry = map.get(key);
    if (entry === undefined) {
      map.set(key, { value, version: this.#version, written: 0 });
      return;
    }
    const snap = this.#active;
    if (snap !== undefined && entry.version <= snap.version && entry.written !== snap.version) snap.saveOld(kg, key, entry.value);
    entry.value = value;
    entry.version = this.#version;
  }

  remove(kg: number, key: Key): void {
    const map = this.maps[kg]!;
    const entry = map.get(key);
    if (entry === undefined) return;
    const snap = this.#active;
    if (snap !== undefined && entry.version <= snap.version && entry.written !== snap.version) snap.saveOld(kg, key, entry.value);
    map.delete(key);
  }

  get size(): number {
    let n = 0;
    for (const m of this.maps) n += m.size;
    return n;
  }

  /**
   * The synchronous part of a snapshot: O(1) while no other snapshot of this table is being
   * written. With one still in flight (several concurrent checkpoints), this one copies eagerly.
   */
  snapshot(): TableSnapshot<V> {
    if (this.#active !== undefined) return this.#eagerSnapshot();
    const snap = new ActiveSnapshot<V>(this.#version, this.maps.length, () => {
      if (this.#active === snap) this.#active = undefined;
    });
    this.#active = snap;
    this.#version++;
    const maps = this.maps;
    return {
      *keyGroupSlices(kg: number, sliceSize: number) {
        let slice: Array<[Key, V]> = [];
        for (const [key, entry] of maps[kg]!) {
          let value: V;
          const old = snap.takeOld(kg, key);
          if (old !== ABSENT) value = old as V;
          else if (entry.version <= snap.version) value = entry.value;
          else continue;
          entry.written = snap.version;
          slice.push([key, value]);
          if (slice.length >= sliceSize) {
            yield slice;
            slice = [];
          }
        }
        // Entries deleted since the snapshot, and not re-created.
        for (const [key, value] of snap.remainingOld(kg)) {
          slice.push([key, value]);
          if (slice.length >= sliceSize) {
            yield slice;
            slice = [];
          }
        }
        if (slice.length > 0) yield slice;
      },
      release: () => snap.release(),
    };
  }

  #eagerSnapshot(): TableSnapshot<V> {
    const copies = this.maps.map((m) => Array.from(m, ([k, e]) => [k, this.#copy(e.value)] as [Key, V]));
    return {
      *keyGroupSlices(kg: number, sliceSize: number) {
        const all = copies[kg]!;
        for (let i = 0; i < all.length; i += sliceSize) yield all.slice(i, i + sliceSize);
      },
      release: () => {},
    };
  }
}

class ActiveSnapshot<V> {
  readonly version: number;
  readonly #old: Array<Map<Key, V> | undefined>;
  readonly #onRelease: () => void;

  constructor(version: number, keyGroups: number, onRelease: () => void) {
    this.version = version;
    this.#old = new Array(keyGroups);
    this.#onRelease = onRelease;
  }

  saveOld(kg: number, key: Key, value: V): void {
    let m = this.#old[kg];
    if (m === undefined) this.#old[kg] = m = new Map();
    if (!m.has(key)) m.set(key, value);
  }

  takeOld(kg: number, key: Key): V | typeof ABSENT {
    const m = this.#old[kg];
    if (m === undefined || !m.has(key)) return ABSENT;
    const v = m.get(key) as V;
    m.delete(key);
    return v;
  }

  remainingOld(kg: number): Array<[Key, V]> {
    const m = this.#old[kg];
    if (m === undefined) return [];
    const rest = [...m];
    m.clear();
    return rest;
  }

  release(): void {
    this.#old.fill(undefined);
    this.#onRelease();
  }
}
