import { HaStorageError } from './ha-storage-error.ts';
import { KeyValueConflictError } from './key-value-conflict-error.ts';
import { keyMatches, type KeyWatch, type VersionedEntry, type VersionedKeyValueStore } from './versioned-key-value-store.ts';

/**
 * The records of one process (or of several "JobManagers" in one test): a map with revisions.
 * Clients see it through InMemoryKeyValueStore, which a test can cut off to play a lost connection.
 */
export class InMemoryKeyValueBackend {
  readonly #entries = new Map<string, VersionedEntry>();
  readonly #watchers = new Set<{ key: string; fn: (e: VersionedEntry | null) => void }>();
  #revision = 0;

  get(key: string): VersionedEntry | null {
    return this.#entries.get(key) ?? null;
  }

  write(key: string, value: Uint8Array, expected: number | 'create'): number {
    const current = this.#entries.get(key);
    if (expected === 'create' ? current !== undefined : current?.revision !== expected) throw new KeyValueConflictError(key, expected === 'create' ? 0 : expected);
    const entry = { key, value: value.slice(), revision: ++this.#revision };
    this.#entries.set(key, entry);
    this.#notify(key, entry);
    return entry.revision;
  }

  delete(key: string, expected: number): void {
    if (this.#entries.get(key)?.revision !== expected) throw new KeyValueConflictError(key, expected);
    this.#entries.delete(key);
    this.#revision++;
    this.#notify(key, null);
  }

  keys(pattern: string): string[] {
    return [...this.#entries.keys()].filter((k) => keyMatches(pattern, k)).sort();
  }

  watch(key: string, fn: (e: VersionedEntry | null) => void): () => void {
    const w = { key, fn };
    this.#watchers.add(w);
    return () => this.#watchers.delete(w);
  }

  #notify(key: string, entry: VersionedEntry | null): void {
    // Asynchronously, as a store's watch delivers: a writer never sees its own change re-entrantly.
    for (const w of this.#watchers) if (w.key === key) queueMicrotask(() => this.#watchers.has(w) && w.fn(entry));
  }
}

export class InMemoryKeyValueStore implements VersionedKeyValueStore {
  readonly description: string;
  readonly #backend: InMemoryKeyValueBackend;
  readonly #watches = new Set<{ key: string; fn: (e: VersionedEntry | null) => void; unsubscribe: (() => void) | undefined }>();
  #connected = true;

  constructor(backend = new InMemoryKeyValueBackend(), description = 'the in-memory HA store') {
    this.#backend = backend;
    this.description = description;
  }

  /** Tests: every operation fails as with an unreachable store, and watches go quiet, until reconnect(). */
  disconnect(): void {
    this.#connected = false;
    for (const w of this.#watches) {
      w.unsubscribe?.();
      w.unsubscribe = undefined;
    }
  }

  reconnect(): void {
    this.#connected = true;
    for (const w of this.#watches) this.#subscribe(w);
  }

  async get(key: string): Promise<VersionedEntry | null> {
    this.#check('get', key);
    return this.#backend.get(key);
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    this.#check('create', key);
    return this.#backend.write(key, value, 'create');
  }

  async update(key: string, value: Uint8Array, revision: number): Promise<number> {
    this.#check('update', key);
    return this.#backend.write(key, value, revision);
  }

  async delete(key: string, revision: number): Promise<void> {
    this.#check('delete', key);
    this.#backend.delete(key, revision);
  }

  async keys(pattern: string): Promise<string[]> {
    this.#check('list', pattern);
    return this.#backend.keys(pattern);
  }

  watch(key: string, onChange: (entry: VersionedEntry | null) => void): KeyWatch {
    const w = { key, fn: onChange, unsubscribe: undefined as (() => void) | undefined };
    this.#watches.add(w);
    if (this.#connected) this.#subscribe(w);
    return {
      close: () => {
        w.unsubscribe?.();
        this.#watches.delete(w);
      },
    };
  }

  #subscribe(w: { key: string; fn: (e: VersionedEntry | null) => void; unsubscribe: (() => void) | undefined }): void {
    w.unsubscribe = this.#backend.watch(w.key, w.fn);
    const current = this.#backend.get(w.key);
    queueMicrotask(() => this.#watches.has(w) && w.fn(current));
  }

  #check(operation: string, key: string): void {
    if (!this.#connected) throw new HaStorageError('UNAVAILABLE', operation, key, this.description, 'disconnected');
  }
}
