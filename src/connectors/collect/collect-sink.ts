import { BroadcastChannel } from 'node:worker_threads';
import type { Sink, SinkContext, SinkWriter } from '../../api/sink.ts';

type CollectMessage<T> =
  | { readonly records: T[] }
  | { readonly end: { readonly subtask: number; readonly parallelism: number; readonly attempt: number } };

/**
 * Sends every record back to the thread that created the sink, wherever the writer runs (the
 * same thread or a worker TaskManager). For tests and small jobs; it gives at-least-once
 * delivery, so after a restart it may hold replayed records twice.
 */
export class CollectSink<T> implements Sink<T> {
  readonly id: string;
  constructor(id: string) {
    this.id = id;
  }
  createWriter(ctx: SinkContext): SinkWriter<T> {
    const channel = new BroadcastChannel(`weir-collect:${this.id}`);
    let batch: T[] = [];
    const send = () => {
      if (batch.length === 0) return;
      channel.postMessage({ records: batch } satisfies CollectMessage<T>);
      batch = [];
    };
    let closed = false;
    return {
      write: (v) => {
        batch.push(v);
        if (batch.length >= 512) send();
      },
      flush: () => {
        send();
        channel.postMessage({ end: { subtask: ctx.subtaskIndex, parallelism: ctx.parallelism, attempt: ctx.attemptNumber } } satisfies CollectMessage<T>);
      },
      snapshotState: () => (send(), []),
      close: () => {
        if (closed) return;
        closed = true;
        send();
        channel.close();
      },
      // A failed or cancelled attempt: an open channel would keep the process alive.
      abort: () => {
        if (closed) return;
        closed = true;
        channel.close();
      },
    };
  }
}

/** The receiving side of a CollectSink with the same id: gathers what the writers send. */
export class CollectedRecords<T> {
  readonly records: T[] = [];
  readonly #channel: BroadcastChannel;
  readonly #ends = new Map<number, Set<number>>();
  #complete: (() => void) | undefined;
  #isComplete = false;

  constructor(id: string) {
    this.#channel = new BroadcastChannel(`weir-collect:${id}`);
    this.#channel.onmessage = (event) => {
      const m = (event as { data: CollectMessage<T> }).data;
      if ('records' in m) {
        for (const r of m.records) this.records.push(r);
        return;
      }
      const seen = this.#ends.get(m.end.attempt) ?? new Set<number>();
      seen.add(m.end.subtask);
      this.#ends.set(m.end.attempt, seen);
      if (seen.size === m.end.parallelism) {
        this.#isComplete = true;
        this.#complete?.();
      }
    };
  }

  /** Resolves once every writer of one attempt has reported the end of its input, then stops listening. */
  async close(timeoutMs = 10_000): Promise<T[]> {
    try {
      if (!this.#isComplete) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`collect: not every writer reported the end of its input within ${timeoutMs} ms`)), timeoutMs);
          this.#complete = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      // Also on a timeout: an open channel would keep the process alive.
      this.#channel.close();
    }
    return this.records;
  }
}
