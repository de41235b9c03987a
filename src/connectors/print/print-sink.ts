import type { Sink, SinkContext, SinkWriter } from '../../api/sink.ts';

export interface PrintSinkOptions<T> {
  /** Text per record; JSON for objects by default. */
  readonly format?: (value: T) => string;
  /** Keep only the latest record per key and print those, sorted, when the input ends. */
  readonly latestBy?: (value: T) => string;
  readonly write?: (text: string) => void;
}

/** Prints records to standard output, as Flink's print(): `N> record` when the parallelism is above 1. */
export class PrintSink<T> implements Sink<T> {
  readonly #o: PrintSinkOptions<T>;
  constructor(options: PrintSinkOptions<T> = {}) {
    this.#o = options;
  }
  createWriter(ctx: SinkContext): SinkWriter<T> {
    const format = this.#o.format ?? ((v: T) => (typeof v === 'string' ? v : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))));
    const prefix = ctx.parallelism > 1 ? `${ctx.subtaskIndex + 1}> ` : '';
    const write = this.#o.write ?? ((text: string) => process.stdout.write(text));
    const latestBy = this.#o.latestBy;
    if (latestBy) {
      const latest = new Map<string, T>();
      return {
        write: (v) => void latest.set(latestBy(v), v),
        flush: () => {
          const lines = [...latest.keys()].sort().map((k) => prefix + format(latest.get(k)!));
          if (lines.length > 0) write(lines.join('\n') + '\n');
        },
      };
    }
    let pending: string[] = [];
    const drain = () => {
      if (pending.length === 0) return;
      write(pending.join('\n') + '\n');
      pending = [];
    };
    return {
      write: (v) => {
        pending.push(prefix + format(v));
        if (pending.length >= 256) drain();
      },
      flush: drain,
      snapshotState: () => (drain(), []),
      close: drain,
    };
  }
}
