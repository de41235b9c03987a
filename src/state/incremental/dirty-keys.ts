import type { Key } from '../key-group.ts';

/** DirtyKeys as arrays, per state its log in chunks: [state, keyGroups, keys][] (a key may appear more than once). */
export type DirtyKeyEntries = Array<[string, Int32Array[], Key[][]]>;

/**
 * Entries per chunk of a change log. A JS array that grows past about 16K elements is reallocated
 * in V8's large-object space at every growth: pushing into one of 130K cost ~90 ns a push against
 * ~7 ns below that size (scratch measurement, Node 20, this machine), and a Set of as many keys
 * as much. Fixed chunks stay ordinary heap objects.
 */
export const CHUNK = 8192;

/** One state's changes in the order they were noted, each with its key group, in chunks of CHUNK. */
class ChangeLog {
  readonly #keyGroups: Int32Array[] = [];
  readonly #keys: Key[][] = [];
  #groupChunk = new Int32Array(CHUNK);
  #keyChunk: Key[] = new Array<Key>(CHUNK);
  #n = 0;
  /** At this length the log is made distinct: a span no checkpoint completes stays as large as its distinct keys, not its changes. */
  #compactAt = FIRST_COMPACTION;

  get length(): number {
    return this.#keys.length * CHUNK + this.#n;
  }

  push(keyGroup: number, key: Key): void {
    if (this.#n === CHUNK) this.#seal();
    this.#groupChunk[this.#n] = keyGroup;
    this.#keyChunk[this.#n++] = key;
    if (this.#n === CHUNK && this.length >= this.#compactAt) this.#compact();
  }

  /** The chunks, the last one cut to what it holds (another thread gets them as they are). */
  chunks(): [Int32Array[], Key[][]] {
    return [
      [...this.#keyGroups, this.#groupChunk.slice(0, this.#n)],
      [...this.#keys, this.#keyChunk.slice(0, this.#n)],
    ];
  }

  /** Every change, oldest first. */
  forEach(f: (keyGroup: number, key: Key) => void): void {
    for (let c = 0; c < this.#keys.length; c++) {
      const groups = this.#keyGroups[c]!;
      const keys = this.#keys[c]!;
      for (let i = 0; i < CHUNK; i++) f(groups[i]!, keys[i]!);
    }
    for (let i = 0; i < this.#n; i++) f(this.#groupChunk[i]!, this.#keyChunk[i]!);
  }

  /** Distinct keys by key group. */
  group(): Map<number, Set<Key>> {
    const groups = new Map<number, Set<Key>>();
    this.forEach((kg, key) => {
      let set = groups.get(kg);
      if (set === undefined) groups.set(kg, (set = new Set()));
      set.add(key);
    });
    return groups;
  }

  #seal(): void {
    this.#keyGroups.push(this.#groupChunk);
    this.#keys.push(this.#keyChunk);
    this.#groupChunk = new Int32Array(CHUNK);
    this.#keyChunk = new Array<Key>(CHUNK);
    this.#n = 0;
  }

  /** Each key once; the next compaction when the log has doubled (amortized: a constant per change). */
  #compact(): void {
    const groups = this.group();
    this.#keyGroups.length = 0;
    this.#keys.length = 0;
    this.#n = 0;
    this.#compactAt = Infinity;
    for (const [kg, set] of groups) for (const key of set) this.push(kg, key);
    this.#compactAt = Math.max(FIRST_COMPACTION, 2 * this.length);
  }
}

/** Changes a log holds before it is first made distinct. */
export const FIRST_COMPACTION = 1 << 20;

/**
 * The keys of a keyed state backend changed (written or removed) in some span of time, by state
 * name and key group: what an incremental checkpoint writes. Keys are as the state holds them
 * (state-key.ts). A key read for change and left as it was may be in it too: a delta writes its
 * current value again, which is harmless.
 *
 * Noting a change appends to a log (two array pushes); the keys are grouped and made distinct
 * only when a delta asks for them (keysOf). Grouping at every change, two Map lookups and a Set
 * insert, took 1.8 s of the task thread in 8M records of the lmdb state bench at 10M keys; a delta
 * written by the lmdb snapshot thread now does it there (toEntries sends the logs as they are).
 */
export class DirtyKeys {
  readonly #logs = new Map<string, ChangeLog>();
  /** The state the last change was to, and its log: a job's changes mostly go to one state after another. */
  #lastState: string | undefined;
  #lastLog: ChangeLog | undefined;
  #grouped: Map<string, Map<number, Set<Key>>> | undefined;

  add(state: string, keyGroup: number, key: Key): void {
    let log = this.#lastLog;
    if (state !== this.#lastState || log === undefined) log = this.#logOf(state);
    log.push(keyGroup, key);
    this.#grouped = undefined;
  }

  /** No change noted. */
  get empty(): boolean {
    for (const log of this.#logs.values()) if (log.length > 0) return false;
    return true;
  }

  /** The distinct keys of `state` in `keyGroup` noted so far. */
  keysOf(state: string, keyGroup: number): ReadonlySet<Key> | undefined {
    return (this.#grouped ??= this.#group()).get(state)?.get(keyGroup);
  }

  /** The logs as plain arrays (what another thread is sent: structured clone keeps every key type). */
  toEntries(): DirtyKeyEntries {
    return [...this.#logs].map(([state, log]) => [state, ...log.chunks()]);
  }

  static fromEntries(entries: DirtyKeyEntries): DirtyKeys {
    const out = new DirtyKeys();
    for (const [state, keyGroups, keys] of entries) for (let c = 0; c < keys.length; c++) out.#append(state, keyGroups[c]!, keys[c]!);
    return out;
  }

  /** Everything in `spans`, as one set (the changes since the checkpoint a delta builds on). */
  static union(spans: readonly DirtyKeys[]): DirtyKeys {
    if (spans.length === 1) return spans[0]!;
    const out = new DirtyKeys();
    for (const span of spans) {
      for (const [state, log] of span.#logs) {
        const into = out.#logOf(state);
        log.forEach((kg, key) => into.push(kg, key));
      }
    }
    return out;
  }

  #logOf(state: string): ChangeLog {
    let log = this.#logs.get(state);
    if (log === undefined) this.#logs.set(state, (log = new ChangeLog()));
    this.#lastState = state;
    this.#lastLog = log;
    return log;
  }

  #append(state: string, keyGroups: Int32Array, keys: readonly Key[]): void {
    const log = this.#logOf(state);
    for (let i = 0; i < keys.length; i++) log.push(keyGroups[i]!, keys[i]!);
    this.#grouped = undefined;
  }

  #group(): Map<string, Map<number, Set<Key>>> {
    const byState = new Map<string, Map<number, Set<Key>>>();
    for (const [state, log] of this.#logs) byState.set(state, log.group());
    return byState;
  }
}
