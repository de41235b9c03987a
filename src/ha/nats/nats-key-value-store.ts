import type { KV, KvEntry } from '@nats-io/kv';
import { KvWatchInclude } from '@nats-io/kv';
import type { KeyWatch, VersionedEntry, VersionedKeyValueStore } from '../versioned-key-value-store.ts';
import { translateNatsError } from './nats-errors.ts';

const WATCH_RETRY_MS = 500;

/** A JetStream key-value bucket as a VersionedKeyValueStore: revisions are the stream's sequences. */
export class NatsKeyValueStore implements VersionedKeyValueStore {
  readonly description: string;
  readonly #kv: KV;

  constructor(kv: KV, description: string) {
    this.#kv = kv;
    this.description = description;
  }

  async get(key: string): Promise<VersionedEntry | null> {
    try {
      return toEntry(await this.#kv.get(key));
    } catch (e) {
      throw translateNatsError(e, 'get', key, this.description, 0);
    }
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    try {
      return await this.#kv.create(key, value);
    } catch (e) {
      throw translateNatsError(e, 'create', key, this.description, 0);
    }
  }

  async update(key: string, value: Uint8Array, revision: number): Promise<number> {
    try {
      return await this.#kv.update(key, value, revision);
    } catch (e) {
      throw translateNatsError(e, 'update', key, this.description, revision);
    }
  }

  async delete(key: string, revision: number): Promise<void> {
    try {
      await this.#kv.delete(key, { previousSeq: revision });
    } catch (e) {
      throw translateNatsError(e, 'delete', key, this.description, revision);
    }
  }

  async keys(pattern: string): Promise<string[]> {
    try {
      const out: string[] = [];
      for await (const k of await this.#kv.keys(pattern)) out.push(k);
      return out.sort();
    } catch (e) {
      throw translateNatsError(e, 'list', pattern, this.description, 0);
    }
  }

  /**
   * The bucket's watch (an ordered consumer that the client resets when it misses messages),
   * started again whenever it ends or fails, with the key's value read afresh each time so that
   * nothing that changed meanwhile is missed.
   */
  watch(key: string, onChange: (entry: VersionedEntry | null) => void): KeyWatch {
    let stopped = false;
    let current: { stop(): void } | undefined;
    const run = async () => {
      while (!stopped) {
        try {
          const iter = await this.#kv.watch({ key, include: KvWatchInclude.UpdatesOnly });
          current = iter;
          if (stopped) iter.stop();
          else onChange(toEntry(await this.#kv.get(key)));
          for await (const e of iter) {
            if (stopped) break;
            onChange(e.operation === 'PUT' ? toEntry(e) : null);
          }
        } catch {
          // The connection is away or the consumer was lost: watch again shortly.
        }
        if (!stopped) await new Promise((r) => setTimeout(r, WATCH_RETRY_MS));
      }
    };
    void run();
    return {
      close: () => {
        stopped = true;
        current?.stop();
      },
    };
  }
}

function toEntry(e: KvEntry | null): VersionedEntry | null {
  if (!e || e.operation !== 'PUT') return null;
  return { key: e.key, value: e.value, revision: e.revision };
}
