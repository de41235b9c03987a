// The job of the `backpressure` benchmark: a fast unbounded source feeding a sink that is far
// slower, over three network hops, so that every channel on the way fills up:
//
//   DataGen (positions i = 0, 1, ...) -> rebalance -> map to {key: i mod K, v: 1, pad}
//   -> keyBy(key) -> sum('v') -> rebalance -> throttled sink
//
// Four vertices (source, map, sum, sink), each of --parallelism subtasks; source->map and
// sum->sink are rebalance edges and map->sum a hash edge, so each is all-to-all. With --hops 1
// the job is the shape of the debloating goal, a source and a slow sink on either side of one
// all-to-all edge: DataGen -> rebalance -> map -> throttled sink (map and sink chained). A module of its
// own because worker TaskManagers load the job by path; the benchmark reads the sink's progress
// from the subtasks' metrics (records in), so nothing here is shared with the benchmark.
//
// Job arguments:
//   --parallelism P   subtasks per vertex (default 2)
//   --keys K          distinct keys of the rolling sum (default 10,000)
//   --payload N       characters of the `pad` string every record carries (default 16)
//   --sink-rate R     records per second each sink subtask takes (default 0: no throttle)
//   --sink-wait-ms W  longest single wait of the sink's ready() (default 10; 0: no limit)
//   --hops H          network hops: 3 (the default, as above) or 1
import { defineJob } from '../../src/index.ts';
import type { Sink, SinkWriter } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';

export interface PaddedRecord {
  key: number;
  v: number;
  pad: string;
}

/**
 * A sink whose every record costs 1/rate seconds of waiting, as if each write went to a slow
 * external system: ready() returns a timer promise for the wait that the records written since
 * the last one have run up, at most `maxWaitMs` at a time (one request to the external system;
 * ready() is asked again when it resolves, and waits for the rest). The task asks ready() between
 * steps (a step takes up to 8 buffers), so with a full input the waits of one step add up to that
 * step's records / rate. Time the sink spends without input is not made up for afterwards
 * (unlike a rate schedule that catches up), so anything that starves the sink shows in its
 * throughput; only a timer's lateness is carried over (the next wait is shorter by it), so the
 * rate with a full input is the configured one.
 */
export class ThrottledSink<T> implements Sink<T> {
  readonly #msPerRecord: number;
  readonly #maxWaitMs: number;

  /** `maxWaitMs` 0: one wait for everything owed. */
  constructor(recordsPerSecond: number, maxWaitMs = 0) {
    this.#msPerRecord = recordsPerSecond > 0 ? 1000 / recordsPerSecond : 0;
    this.#maxWaitMs = maxWaitMs > 0 ? maxWaitMs : Infinity;
  }

  createWriter(): SinkWriter<T> {
    const msPerRecord = this.#msPerRecord;
    const maxWaitMs = this.#maxWaitMs;
    if (msPerRecord === 0) return { write: () => {} };
    /** Milliseconds of waiting owed for the records written since the last wait; negative: the last timer was late. */
    let owed = 0;
    let waiting: Promise<void> | undefined;
    return {
      write: () => {
        owed += msPerRecord;
      },
      ready: () => {
        if (waiting !== undefined) return waiting;
        if (owed < 1) return undefined;
        const wait = Math.min(owed, maxWaitMs);
        const from = performance.now();
        waiting = new Promise<void>((resolve) =>
          setTimeout(() => {
            waiting = undefined;
            // Lateness of the timer is credited, but never more than one wait's worth.
            owed = Math.max(-wait, owed - (performance.now() - from));
            resolve();
          }, wait),
        );
        return waiting;
      },
    };
  }
}

export default defineJob((env, args) => {
  const keys = args.getNumber('keys', 10_000);
  const pad = 'x'.repeat(args.getNumber('payload', 16));
  const hops = args.getNumber('hops', 3);
  if (hops !== 1 && hops !== 3) throw new Error(`--hops must be 1 or 3, got ${hops}`);
  env.setParallelism(args.getNumber('parallelism', 2));
  const mapped = env
    .fromSource(DataGen.of((i) => i), { name: 'Source: datagen', uid: 'source' })
    .rebalance()
    .map((i: number): PaddedRecord => ({ key: i % keys, v: 1, pad }), { name: 'Map', uid: 'map' });
  const toSink = hops === 1 ? mapped : mapped.keyBy((r) => r.key).sum('v', { name: 'Sum', uid: 'sum' }).rebalance();
  toSink.sinkTo(new ThrottledSink<PaddedRecord>(args.getNumber('sink-rate', 0), args.getNumber('sink-wait-ms', 10)), { name: 'Sink: throttled', uid: 'sink' });
});
