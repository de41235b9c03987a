// The async enrichment the `async` benchmark runs: ids 0..N-1 from a collection -> async I/O
// (ordered or unordered) whose callee is an in-process timer of --latency ms, or a GET to an HTTP
// server -> a sink that counts. Each subtask writes what it saw (records, and the callee's latency
// as measured around each call) to --report-dir when it closes. A module of its own because
// worker TaskManagers load the job by path.
//
//   --records N  --mode ordered|unordered  --capacity C  --callee timer|http  --latency MS
//   --server URL (http)  --report-dir DIR
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AsyncDataStream, defineJob, type AsyncFunction, type Sink, type SinkContext, type SinkWriter } from '../../src/index.ts';
import { CollectionSource } from '../../src/connectors/collection/index.ts';

export interface AsyncBenchReport {
  readonly subtask: number;
  readonly records: number;
  readonly calls: number;
  /** Sum of the callee's latencies (ms), from the call to its result. */
  readonly latencySumMs: number;
}

/** The callee's own figures, for the one subtask (the benchmark runs at parallelism 1). */
const calls = { n: 0, latencySumMs: 0 };

function timerCallee(latencyMs: number): AsyncFunction<number, number> {
  return (id) => {
    const start = performance.now();
    return new Promise((resolve) => {
      setTimeout(() => {
        calls.n++;
        calls.latencySumMs += performance.now() - start;
        resolve([id]);
      }, latencyMs);
    });
  };
}

function httpCallee(server: string): AsyncFunction<number, number> {
  return async (id, signal) => {
    const start = performance.now();
    const res = await fetch(`${server}/?id=${id}`, { signal });
    await res.arrayBuffer();
    calls.n++;
    calls.latencySumMs += performance.now() - start;
    return [id];
  };
}

class CountingSink implements Sink<number> {
  readonly #dir: string | undefined;
  constructor(dir: string | undefined) {
    this.#dir = dir;
  }
  createWriter(ctx: SinkContext): SinkWriter<number> {
    // The module stays loaded from one in-thread run to the next: each run counts from zero.
    calls.n = 0;
    calls.latencySumMs = 0;
    let records = 0;
    return {
      write: () => void records++,
      close: () => {
        if (this.#dir === undefined) return;
        const report: AsyncBenchReport = { subtask: ctx.subtaskIndex, records, calls: calls.n, latencySumMs: calls.latencySumMs };
        writeFileSync(join(this.#dir, `sink-${ctx.subtaskIndex}.json`), JSON.stringify(report));
      },
    };
  }
}

export default defineJob((env, args) => {
  const records = args.getNumber('records', 100_000);
  const ids = new CollectionSource(Array.from({ length: records }, (_, i) => i));
  const callee = args.get('callee', 'timer') === 'http' ? httpCallee(args.get('server', '')) : timerCallee(args.getNumber('latency', 1));
  const wait = args.get('mode', 'ordered') === 'unordered' ? AsyncDataStream.unorderedWait : AsyncDataStream.orderedWait;
  wait(env.fromSource(ids, { name: 'Source: ids', uid: 'ids' }), callee, { capacity: args.getNumber('capacity', 100), timeout: '60 s', uid: 'enrich', name: 'Enrich' })
    .sinkTo(new CountingSink(args.get('report-dir')), { name: 'Sink: count', uid: 'sink' });
});
