import type { Key } from '../key-group.ts';

/** DirtyKeys as arrays: [state, [keyGroup, keys][]][]. */
export type DirtyKeyEntries = Array<[string, Array<[number, Key[]]>]>;

/**
 * The keys of a keyed state backend changed (written or removed) in some span of time, by state
 * name and key group: what an incremental checkpoint writes. Keys are as the state holds them
 * (state-key.ts). A key read for change and left as it was may be in it too: a delta writes its
 * current value again, which is harmless.
 */
export class DirtyKeys {
  readonly #byState = new Map<string, Map<number, Set<Key>>>();
  #size = 0;

  add(state: string, keyGroup: number, key: Key): void {
    let groups = this.#byState.get(state);
    if (groups === undefined) this.#byState.set(state, (groups = new Map()));
    let keys = groups.get(keyGroup);
    if (keys === undefined) groups.set(keyGroup, (keys = new Set()));
    const before = keys.size;
    keys.add(key);
    this.#size += keys.size - before;
  }

  /** Keys added, each once per state. */
  get size(): number {
    return this.#size;
  }

  keysOf(state: string, keyGroup: number): ReadonlySet<Key> | undefined {
    return this.#byState.get(state)?.get(keyGroup);
  }

  /** The keys as plain arrays, by state and key group (what another thread is sent: structured clone keeps every key type). */
  toEntries(): DirtyKeyEntries {
    return [...this.#byState].map(([state, groups]) => [state, [...groups].map(([kg, keys]) => [kg, [...keys]] as [number, Key[]])]);
  }

  static fromEntries(entries: DirtyKeyEntries): DirtyKeys {
    const out = new DirtyKeys();
    for (const [state, groups] of entries) for (const [kg, keys] of groups) for (const k of keys) out.add(state, kg, k);
    return out;
  }

  /** Everything in `spans`, as one set (the changes since the checkpoint a delta builds on). */
  static union(spans: readonly DirtyKeys[]): DirtyKeys {
    if (spans.length === 1) return spans[0]!;
    const out = new DirtyKeys();
    for (const span of spans) for (const [state, groups] of span.#byState) for (const [kg, keys] of groups) for (const k of keys) out.add(state, kg, k);
    return out;
  }
}
