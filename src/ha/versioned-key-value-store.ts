/**
 * What the HA services need of a store: values at revisions, compare-and-set on the revision, and
 * watches (NATS JetStream KV gives all three; so does an in-memory map). Every HA record is built
 * on this, so the election, the fencing and the stores are written once for both.
 */
export interface VersionedEntry {
  readonly key: string;
  readonly value: Uint8Array;
  /** Grows with every write to the store; a compare-and-set names the revision it read. */
  readonly revision: number;
}

/** A handle on a watch: closed when its follower no longer wants the changes. */
export interface KeyWatch {
  close(): void;
}

export interface VersionedKeyValueStore {
  /** For messages: which store this is (a bucket and its servers). */
  readonly description: string;
  /** The live value, or null when the key has none (never written, or deleted). */
  get(key: string): Promise<VersionedEntry | null>;
  /** Writes a key that has no live value; a KeyValueConflictError when it has one. */
  create(key: string, value: Uint8Array): Promise<number>;
  /** Writes only if the key is still at `revision`; a KeyValueConflictError otherwise. */
  update(key: string, value: Uint8Array, revision: number): Promise<number>;
  /** Deletes only if the key is still at `revision`; a KeyValueConflictError otherwise. */
  delete(key: string, revision: number): Promise<void>;
  /** Keys with a live value matching a NATS subject pattern (`*` one token, `>` the rest). */
  keys(pattern: string): Promise<string[]>;
  /**
   * Calls back with the key's current value (or null) and then with every change. A watch that
   * broke is started again by the store; callers must not rely on seeing every revision, only
   * the latest.
   */
  watch(key: string, onChange: (entry: VersionedEntry | null) => void): KeyWatch;
}

/** Whether a key matches a NATS subject pattern. */
export function keyMatches(pattern: string, key: string): boolean {
  const p = pattern.split('.');
  const k = key.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return k.length > i;
    if (i >= k.length) return false;
    if (p[i] !== '*' && p[i] !== k[i]) return false;
  }
  return p.length === k.length;
}
