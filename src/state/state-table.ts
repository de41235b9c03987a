import type { InPlaceAggregate } from './in-place-aggregate.ts';
import type { Key } from './key-group.ts';
import { ChangedKeys } from './incremental/changed-keys.ts';

/**
 * One keyed state's entries, one Map per key group the subtask owns.
 *
 * Snapshots are copy-on-write: the synchronous part only records a version number, so its cost
 * does not grow with the state. Until the asynchronous writer has passed an entry, the first
 * write to it (or the first read of a mutable value, which the caller might mutate in place)
 * saves the old value aside for the snapshot: in the entry itself, or, when the entry is removed,
 * in the snapshot's map of removed entries. Entries created after the snapshot carry a newer
 * version and are skipped by it.
 */
export interface Entry<V> {
  value: V;
  version: number;
  /** The version of the snapshot that has already written this entry out. */
  written: number;
  /**
   * The value the active snapshot is to write for this entry, saved by the entry's first change
   * after the snapshot was taken, as the snapshot writes it (StateTable.storeAs); NO_OLD
   * otherwise. Only ever the active snapshot's: its writer takes the value as it passes the
   * entry, and its release clears what the writer left.
   */
  old: unknown;
}

/** Keys fold() finds without their key group, at most (as many as a subtask usually has hot keys). */
const INDEX_LIMIT = 65_536;
/**
 * Folds that skip the index after it filled up with fewer hits than keys put in it: when most
 * keys are not seen again before the index starts over, its lookup and insert cost more than
 * finding the key group. Then it is tried again.
 */
const INDEX_BYPASS = 8 * INDEX_LIMIT;

const EMPTY_KEYS: ReadonlySet<Key> = new Set();

/** Entry.old when the entry holds no value for a snapshot. */
const NO_OLD: unique symbol = Symbol('no old value');

export interface TableSnapshot<V> {
  /** Entries of one key group as they were when the snapshot was taken, in slices of at most `slice` entries. */
  keyGroupSlices(keyGroupIndex: number, slice: number): Generator<Array<[Key, V]>>;
  /**
   * The same entries laid out flat, each slice a fresh array that starts with `prefix`:
   * [...prefix, key, value, key, value, ...], as a state file's frame is, with no array per entry.
   */
  keyGroupFrames(keyGroupIndex: number, slice: number, prefix: readonly unknown[]): Generator<unknown[]>;
  /**
   * The same entries into arrays the caller owns and reuses: each step fills `keys[0..n)` and
   * `values[0..n)` with up to `slice` entries and yields n (state files: no array per slice or
   * entry). A step's values are only the snapshot's until the caller lets the task run again:
   * write them out before the next await.
   */
  keyGroupEntries(keyGroupIndex: number, slice: number, keys: Key[], values: unknown[]): Generator<number>;
  /**
   * From now on, a value this snapshot still needs whose entry is about to change goes to `save`
   * (its key group index, its key, the value as the snapshot writes it) instead of being kept
   * aside: the writer encodes it at once, while the entry is in the CPU's cache and before it
   * changes, and the value becomes garbage at once. `save` returns false when it did not take the
   * value (it could not encode it); then the table keeps it aside for the writer as before.
   * Optional: snapshots that filter or copy their values (TTL cleanup, deltas) do not offer it.
   */
  saveTo?(save: SavedValueSink): void;
  /** Its writer is done: the table keeps no copies for it any more (Flink's StateSnapshot.release). */
  release(): void;
}

/** Where a snapshot's values saved by changes go (TableSnapshot.saveTo). */
export type SavedValueSink = (keyGroupIndex: number, key: Key, value: unknown) => boolean;

export class StateTable<V> {
  readonly maps: Map<Key, Entry<V>>[];
  #copy: (value: V) => V;
  #stored: ((value: V) => unknown) | undefined;
  #version = 1;
  #active: ActiveSnapshot<V> | undefined;
  /**
   * Entries of recently folded keys, by key alone, for fold(). Entries stay in `maps`; this only
   * finds them. remove() takes the key out, so it never holds an entry the table has dropped.
   */
  readonly #index = new Map<Key, Entry<V>>();
  #indexHits = 0;
  #indexBypass = 0;
  /**
   * Incremental checkpoints: the keys changed since the last takeChanges() (undefined: not
   * tracked). An entry whose version is the table's current one is already in it, so a hot key
   * costs one comparison per change, not a lookup.
   */
  #changed: ChangedKeys | undefined;

  constructor(keyGroups: number, copy: (value: V) => V) {
    this.maps = Array.from({ length: keyGroups }, () => new Map());
    this.#copy = copy;
  }

  /** Restored tables get the copy function of their descriptor once the operator registers it. */
  useCopy(copy: (value: V) => V): void {
    this.#copy = copy;
  }

  /** Values kept in a form of their own (InPlaceAggregate) are written to snapshots as `toStored` makes them. */
  storeAs(toStored: (value: V) => unknown): void {
    this.#stored = toStored;
  }

  get(kg: number, key: Key): V | undefined {
    const entry = this.maps[kg]!.get(key);
    if (entry === undefined) return undefined;
    if (typeof entry.value !== 'object' || entry.value === null) return entry.value;
    const snap = this.#active;
    if (snap !== undefined && entry.version <= snap.version && entry.written !== snap.version) {
      // The caller may mutate what it reads: keep the snapshot's value, hand out a copy (a
      // stored form is apart from the value already, and an encoded one needs no copy).
      if (!this.#saveOld(snap, entry, kg, key) && this.#stored === undefined) entry.value = this.#copy(entry.value);
      this.#changing(entry, key);
    } else if (this.#changed !== undefined) this.#changing(entry, key);
    return entry.value;
  }

  /** Changed keys are tracked from now on (incremental checkpoints). */
  trackChanges(): void {
    this.#changed ??= new ChangedKeys();
  }

  /**
   * The keys changed (written, removed, or read as a mutable object) since the last call, and
   * tracking starts over. A key removed and made again since is there more than once.
   */
  takeChanges(): Iterable<Key> & { readonly size: number } {
    const changed = this.#changed;
    if (changed === undefined || changed.size === 0) return EMPTY_KEYS;
    this.#changed = new ChangedKeys();
    // Entries changed before now carry an older version than any change from now on.
    this.#version++;
    return changed;
  }

  /**
   * The current value of a key as a snapshot writes it, copied (an incremental checkpoint's
   * delta takes its few changed entries this way in its synchronous part), or undefined if absent.
   */
  capture(kg: number, key: Key): unknown {
    const entry = this.maps[kg]!.get(key);
    if (entry === undefined) return undefined;
    const value = typeof entry.value === 'object' && entry.value !== null ? this.#copy(entry.value) : entry.value;
    return this.#stored === undefined ? value : this.#stored(value);
  }

  /** An entry is about to change: its key joins the changed keys (if tracked), and it takes the current version. */
  #changing(entry: Entry<V>, key: Key): void {
    if (this.#changed !== undefined && entry.version !== this.#version) this.#changed.add(key);
    entry.version = this.#version;
  }

  /**
   * Folds a value into a key's entry: the entry becomes `value` when absent, else
   * `fn(current, value)`. `fn` may return a new object or change `current` in place. A key folded
   * recently is found with one lookup and no key group (computing one costs about as much as the
   * lookup); otherwise `place` gives its key group index (and throws for a key this table must not
   * hold).
   */
  fold(key: Key, value: V, fn: (current: V, value: V) => V, place: (key: Key) => number): V {
    const found = this.#foldable(key, place);
    if (found instanceof Map) {
      this.#add(found, key, value);
      return value;
    }
    const next = fn(found.value, value);
    found.value = next;
    return next;
  }

  /**
   * fold() for values kept in a form of their own (InPlaceAggregate): the entry becomes
   * `form.first(value)` when absent and `value` is returned; else `form.fold` changes the entry's
   * state in place (a copy of it while a snapshot still needs the original) and returns what to
   * emit. Entries are found as fold() finds them.
   */
  foldInPlace<T>(key: Key, value: T, form: InPlaceAggregate<V, T>, place: (key: Key) => number): T {
    const found = this.#foldable(key, place);
    if (found instanceof Map) {
      this.#add(found, key, form.first(value));
      return value;
    }
    return form.fold(found.value, value);
  }

  /**
   * The key's entry, ready to be changed in place (while a snapshot still needs its value, that is
   * saved aside and the entry holds a copy), or the Map of its key group when the key is absent.
   */
  #foldable(key: Key, place: (key: Key) => number): Entry<V> | Map<Key, Entry<V>> {
    let entry = this.#cached(key);
    /** The key group index, when known (a key found by the index has none). */
    let kg = -1;
    if (entry === undefined) {
      kg = place(key);
      const map = this.maps[kg]!;
      entry = map.get(key);
      if (entry === undefined) return map;
      this.#remember(key, entry);
    }
    const snap = this.#active;
    if (snap !== undefined && entry.version <= snap.version && entry.written !== snap.version) {
      const current = entry.value;
      const encoded = this.#saveOld(snap, entry, kg < 0 && snap.save !== undefined ? place(key) : kg, key);
      if (!encoded && this.#stored === undefined && typeof current === 'object' && current !== null) entry.value = this.#copy(current);
    }
    this.#changing(entry, key);
    return entry;
  }

  /**
   * An entry the active snapshot still needs is about to change: its value is saved aside as the
   * snapshot writes it. Values kept in a form of their own (storeAs) are saved in their stored
   * form, a separate object, so the entry goes on changing its own value in place: no copy of it,
   * and the writer has nothing left to convert when it takes the saved value.
   */
  #saveOld(snap: ActiveSnapshot<V>, entry: Entry<V>, kg: number, key: Key): boolean {
    const value = this.#forSnapshot(entry.value);
    // Taken by the writer's sink (encoded): the entry counts as written, so the writer skips it.
    if (snap.save !== undefined && snap.save(kg, key, value)) {
      entry.written = snap.version;
      snap.unwritten[kg]!--;
      return true;
    }
    snap.saveOld(entry, value);
    return false;
  }

  #forSnapshot(value: V): unknown {
    return this.#stored === undefined ? value : this.#stored(value);
  }

  #add(map: Map<Key, Entry<V>>, key: Key, value: V): void {
    const entry: Entry<V> = { value, version: this.#version, written: 0, old: NO_OLD };
    map.set(key, entry);
    this.#changed?.add(key);
    this.#remember(key, entry);
  }

  /** The entry of a recently folded key, or undefined (also while the cache is bypassed). */
  #cached(key: Key): Entry<V> | undefined {
    if (this.#indexBypass > 0) {
      this.#indexBypass--;
      return undefined;
    }
    const entry = this.#index.get(key);
    if (entry !== undefined) this.#indexHits++;
    return entry;
  }

  #remember(key: Key, entry: Entry<V>): void {
    if (this.#indexBypass > 0) return;
    if (this.#index.size >= INDEX_LIMIT) {
      // A cache, not the table: starting over when full keeps it small whatever the key count.
      this.#index.clear();
      if (this.#indexHits < INDEX_LIMIT) this.#indexBypass = INDEX_BYPASS;
      this.#indexHits = 0;
      if (this.#indexBypass > 0) return;
    }
    this.#index.set(key, entry);
  }

  put(kg: number, key: Key, value: V): void {
    const map = this.maps[kg]!;
    const entry = map.get(key);
    if (entry === undefined) {
      map.set(key, { value, version: this.#version, written: 0, old: NO_OLD });
      this.#changed?.add(key);
      return;
    }
    const snap = this.#active;
    if (snap !== undefined && entry.version <= snap.version && entry.written !== snap.version) this.#saveOld(snap, entry, kg, key);
    entry.value = value;
    this.#changing(entry, key);
  }

  /**
   * A restored entry into an empty table (no snapshot is active while a restore runs): no lookup
   * first. Version 0: older than any change, so a change after the restore counts as one.
   */
  load(kg: number, key: Key, value: V): void {
    this.maps[kg]!.set(key, { value, version: 0, written: 0, old: NO_OLD });
  }

  remove(kg: number, key: Key): void {
    const map = this.maps[kg]!;
    const entry = map.get(key);
    if (entry === undefined) return;
    const snap = this.#active;
    if (snap !== undefined) {
      // What the snapshot still has to write moves to its map of removed entries; the entry
      // counts as written, for a writer that took it out of the Map before it was removed.
      if (entry.old !== NO_OLD) {
        snap.saveRemoved(kg, key, snap.takeOld(entry));
        snap.unwritten[kg]!--;
      } else if (entry.version <= snap.version && entry.written !== snap.version) {
        snap.saveRemoved(kg, key, this.#forSnapshot(entry.value));
        snap.unwritten[kg]!--;
      }
      entry.written = snap.version;
    }
    map.delete(key);
    this.#changed?.addRemoved(key);
    if (this.#index.size > 0) this.#index.delete(key);
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
    const maps = this.maps;
    const stored = this.#stored;
    const snap = new ActiveSnapshot<V>(this.#version, maps, () => {
      if (this.#active === snap) this.#active = undefined;
      // Values saved for entries the writer never reached (it stopped early) must not linger.
      if (snap.held > 0) for (const m of maps) for (const entry of m.values()) if (entry.old !== NO_OLD) entry.old = NO_OLD;
    });
    this.#active = snap;
    this.#version++;
    function* keyGroupFrames(kg: number, sliceSize: number, prefix: readonly unknown[]): Generator<unknown[]> {
      const full = prefix.length + 2 * sliceSize;
      let frame = prefix.slice();
      for (const [key, entry] of maps[kg]!) {
        let value: unknown;
        // A saved value is in the form the snapshot writes already.
        if (entry.old !== NO_OLD) value = snap.takeOld(entry);
        else if (entry.version <= snap.version) value = stored === undefined ? entry.value : stored(entry.value);
        else continue;
        entry.written = snap.version;
        frame.push(key, value);
        if (frame.length >= full) {
          yield frame;
          frame = prefix.slice();
        }
      }
      // Entries removed since the snapshot (some may have been created again since).
      for (const [key, value] of snap.remainingRemoved(kg)) {
        frame.push(key, value);
        if (frame.length >= full) {
          yield frame;
          frame = prefix.slice();
        }
      }
      if (frame.length > prefix.length) yield frame;
    }
    /**
     * The key group's entries are taken out of its Map at once (its keys and its values spread
     * into two arrays, which does not touch the entries themselves: 4 ns an entry against 14 for
     * a forEach that pushes) and then visited slice by slice, loaded ahead (loadAhead): about
     * twice as fast as a for-of over the Map in a generator (1M entries, this machine), whose
     * every step chased the entry, its value and the next Map slot in one dependent chain. An
     * entry removed after that is marked written by remove() (its value went to the removed
     * entries), and entries created after the snapshot carry a newer version, so neither is
     * written twice or wrongly.
     */
    function* keyGroupEntries(kg: number, sliceSize: number, keys: Key[], values: unknown[]): Generator<number> {
      // Every entry of the key group was saved into the writer's sink or removed: nothing to walk.
      const walk = snap.unwritten[kg] !== 0;
      const groupKeys: Key[] = walk ? [...maps[kg]!.keys()] : [];
      const groupEntries: Array<Entry<V>> = walk ? [...maps[kg]!.values()] : [];
      let n = 0;
      for (let i = 0; i < groupEntries.length; i++) {
        if ((i & (LOAD_AHEAD - 1)) === 0) loadAhead(groupEntries, i, Math.min(groupEntries.length, i + LOAD_AHEAD));
        const entry = groupEntries[i]!;
        let value: unknown;
        if (entry.written === snap.version) continue;
        if (entry.old !== NO_OLD) value = snap.takeOld(entry);
        else if (entry.version <= snap.version) value = stored === undefined ? entry.value : stored(entry.value);
        else continue;
        entry.written = snap.version;
        keys[n] = groupKeys[i]!;
        values[n] = value;
        if (++n === sliceSize) {
          yield n;
          n = 0;
        }
      }
      for (const [key, value] of snap.remainingRemoved(kg)) {
        keys[n] = key;
        values[n] = value;
        if (++n === sliceSize) {
          yield n;
          n = 0;
        }
      }
      if (n > 0) yield n;
    }
    return {
      keyGroupFrames,
      keyGroupEntries,
      keyGroupSlices: (kg, sliceSize) => framesToSlices<V>(keyGroupFrames(kg, sliceSize, [])),
      saveTo: (save) => snap.saveTo(save),
      release: () => snap.release(),
    };
  }

  #eagerSnapshot(): TableSnapshot<V> {
    const copies = this.maps.map((m) => {
      const flat: unknown[] = [];
      for (const [k, e] of m) flat.push(k, this.#stored === undefined ? this.#copy(e.value) : this.#stored(this.#copy(e.value)));
      return flat;
    });
    function* keyGroupFrames(kg: number, sliceSize: number, prefix: readonly unknown[]): Generator<unknown[]> {
      const all = copies[kg]!;
      for (let i = 0; i < all.length; i += 2 * sliceSize) yield prefix.concat(all.slice(i, i + 2 * sliceSize));
    }
    function* keyGroupEntries(kg: number, sliceSize: number, keys: Key[], values: unknown[]): Generator<number> {
      const all = copies[kg]!;
      for (let i = 0; i < all.length; i += 2 * sliceSize) {
        const end = Math.min(all.length, i + 2 * sliceSize);
        let n = 0;
        for (let j = i; j < end; j += 2, n++) {
          keys[n] = all[j] as Key;
          values[n] = all[j + 1];
        }
        yield n;
      }
    }
    return {
      keyGroupFrames,
      keyGroupEntries,
      keyGroupSlices: (kg, sliceSize) => framesToSlices<V>(keyGroupFrames(kg, sliceSize, [])),
      release: () => {},
    };
  }
}

/**
 * Entries a snapshot's walk loads ahead of the loop that writes them out. The entries and their
 * values lie scattered over the heap, a cache miss each; the writing loop does too much per entry
 * for the CPU to run ahead into the next ones, so its misses came one after another. A tight
 * loop over the next entries issues their loads together instead.
 */
const LOAD_AHEAD = 32;
/** What loadAhead counted, kept so that no compiler drops its loads as unused. */
let loadedAhead = 0;

function loadAhead(entries: ReadonlyArray<Entry<unknown>>, from: number, to: number): void {
  let n = 0;
  for (let i = from; i < to; i++) if (entries[i]!.written !== 0) n++;
  // typeof reads the value's map: the first line of the object is then in the cache.
  for (let i = from; i < to; i++) if (typeof entries[i]!.value === 'object') n++;
  loadedAhead = (loadedAhead + n) | 0;
}

function* framesToSlices<V>(frames: Generator<unknown[]>): Generator<Array<[Key, V]>> {
  for (const frame of frames) {
    const slice: Array<[Key, V]> = [];
    for (let i = 0; i + 1 < frame.length; i += 2) slice.push([frame[i] as Key, frame[i + 1] as V]);
    yield slice;
  }
}

class ActiveSnapshot<V> {
  readonly version: number;
  /** Entries holding a saved value (Entry.old) that the writer has not taken yet. */
  held = 0;
  /** The writer's sink for values saved by changes (TableSnapshot.saveTo), until released. */
  save: SavedValueSink | undefined;
  /**
   * Per key group, entries of the snapshot still in the Map that no sink took and no removal
   * moved aside (an upper bound: a walk does not count down). 0: the writer need not walk it.
   */
  readonly unwritten: Int32Array;
  /** Removed entries' values, as the snapshot writes them. */
  readonly #removed: Array<Map<Key, unknown> | undefined>;
  readonly #onRelease: () => void;

  constructor(version: number, maps: ReadonlyArray<Map<Key, unknown>>, onRelease: () => void) {
    this.version = version;
    this.#removed = new Array(maps.length);
    this.unwritten = Int32Array.from(maps, (m) => m.size);
    this.#onRelease = onRelease;
  }

  /** Called once per entry and snapshot: afterwards the entry's version is newer than the snapshot's. */
  saveOld(entry: Entry<V>, value: unknown): void {
    entry.old = value;
    this.held++;
  }

  takeOld(entry: Entry<V>): unknown {
    const v = entry.old;
    entry.old = NO_OLD;
    this.held--;
    return v;
  }

  /** An entry removed before the writer reached it: the first value saved for the key is the snapshot's. */
  saveRemoved(kg: number, key: Key, value: unknown): void {
    let m = this.#removed[kg];
    if (m === undefined) this.#removed[kg] = m = new Map();
    if (!m.has(key)) m.set(key, value);
  }

  remainingRemoved(kg: number): Array<[Key, unknown]> {
    const m = this.#removed[kg];
    if (m === undefined) return [];
    const rest = [...m];
    m.clear();
    return rest;
  }

  saveTo(save: SavedValueSink): void {
    if (!this.#released) this.save = save;
  }

  /** Idempotent: an aborted write releases at once and again when its writer stops. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.save = undefined;
    this.#removed.fill(undefined);
    this.#onRelease();
  }
  #released = false;
}
