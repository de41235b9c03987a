// The keyed-sum job of the `checkpoint` and `recovery` benchmarks: generated {key, v[, t]}
// records -> keyBy(key) -> a rolling sum -> a sink that reports to a Probe. The jobs run on the
// in-thread TaskManager (taskManagers 0), so the Probe is shared memory between the benchmark
// and the running job: the sink counts and timestamps records into it, and the benchmark arms a
// one-off failure through it. (Worker TaskManagers would each get a copy of this module, so
// these definitions are for in-thread use only.)
import { defineJob } from '../../src/index.ts';
import type { InputStatus, JobDefinition, Sink, SinkWriter, Source, SourceOutput, SourceReader } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';

/** A record of the benchmark; `t` is its creation time (epoch ms, sub-ms resolution) when latency is measured. */
export interface KeyedRecord {
  key: number;
  v: number;
  t?: number;
}

/** Wall-clock time with sub-millisecond resolution, comparable across threads: performance.timeOrigin + performance.now(). */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/**
 * The key of the record at `position`: 0, 1, ..., keys-1 first, so that the state holds every
 * key after `keys` records, then keys spread pseudo-randomly over the whole range (a
 * multiplicative hash of the position), so that updates touch the state everywhere.
 */
export function keyAt(position: number, keys: number): number {
  if (position < keys) return position;
  let x = Math.imul(position, 0x9e3779b1) >>> 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b) >>> 0;
  x = (x ^ (x >>> 13)) >>> 0;
  return x % keys;
}

/** What the sink tells the benchmark. One Probe per job run. */
export class Probe {
  /** Records the sink wrote in attempt 0 (the first attempt). */
  count = 0;
  /** performance.now() when the writer was closed (the job finished). */
  closedAt = 0;
  /**
   * Every `markEvery`-th record (a power of two; 0: off) the sink notes the time: the rate while
   * records flow is (lastMarkCount - firstMarkCount) / (lastMarkAt - firstMarkAt), without job
   * start-up, the end of input or a clock read per record.
   */
  readonly markMask: number;
  firstMarkAt = 0;
  firstMarkCount = 0;
  lastMarkAt = 0;
  lastMarkCount = 0;
  /** Date.now() when the sink had written `prefill` records (the state then holds every key); 0 before. */
  prefilledAt = 0;
  /** Records of the prefill; latencies are recorded for the records after it. */
  readonly prefill: number;
  /** Latency recording (records after the prefill): arrival time (epoch ms) and latency (ms). */
  readonly arrivals: Float64Array | undefined;
  readonly latencies: Float32Array | undefined;
  recorded = 0;
  /** Set by the benchmark: the next record written throws once (performance.now() of the throw in failedAt). */
  armed = false;
  failedAt = 0;
  /** performance.now() when the writer of a later attempt was created, and when it got its first record. */
  reopenedAt = 0;
  firstAfterRestoreAt = 0;
  attemptOfFirstAfterRestore = -1;

  constructor(options: { prefill?: number; latencyCapacity?: number; markEvery?: number } = {}) {
    this.prefill = options.prefill ?? 0;
    const every = options.markEvery ?? 0;
    if (every !== 0 && (every & (every - 1)) !== 0) throw new TypeError(`markEvery must be a power of two, got ${every}`);
    this.markMask = every === 0 ? -1 : every - 1;
    const capacity = options.latencyCapacity ?? 0;
    this.arrivals = capacity > 0 ? new Float64Array(capacity) : undefined;
    this.latencies = capacity > 0 ? new Float32Array(capacity) : undefined;
  }
}

/** Thrown by the sink when the benchmark armed a failure. */
export class BenchmarkFailure extends Error {
  constructor() {
    super('failure injected by the recovery benchmark');
    this.name = 'BenchmarkFailure';
  }
}

/** Discards records, reporting to the probe: counts and times, latencies, the first record after a restore. */
export class ProbeSink implements Sink<KeyedRecord> {
  readonly #probe: Probe;

  constructor(probe: Probe) {
    this.#probe = probe;
  }

  createWriter(ctx: { attemptNumber: number }): SinkWriter<KeyedRecord> {
    const p = this.#probe;
    if (ctx.attemptNumber > 0) {
      // A restarted attempt: only the moment it gets going matters.
      if (p.reopenedAt === 0) p.reopenedAt = performance.now();
      return {
        write: () => {
          if (p.firstAfterRestoreAt === 0) {
            p.firstAfterRestoreAt = performance.now();
            p.attemptOfFirstAfterRestore = ctx.attemptNumber;
          }
        },
      };
    }
    const arrivals = p.arrivals;
    const latencies = p.latencies;
    const markMask = p.markMask;
    return {
      write: (r) => {
        const n = ++p.count;
        if ((n & markMask) === 0) {
          const now = performance.now();
          if (p.firstMarkAt === 0) {
            p.firstMarkAt = now;
            p.firstMarkCount = n;
          }
          p.lastMarkAt = now;
          p.lastMarkCount = n;
        }
        if (n === p.prefill) p.prefilledAt = Date.now();
        if (latencies !== undefined && n > p.prefill && r.t !== undefined && p.recorded < latencies.length) {
          const now = epochNow();
          arrivals![p.recorded] = now;
          latencies[p.recorded++] = now - r.t;
        }
        if (p.armed) {
          p.armed = false;
          p.failedAt = performance.now();
          throw new BenchmarkFailure();
        }
      },
      close: () => {
        p.closedAt = performance.now();
      },
    };
  }
}

interface PhasedSplit {
  readonly next: number;
  readonly end: number | null;
}

/**
 * Generated records in two phases: the first `prefill` positions as fast as the job takes them,
 * then at most `ratePerSecond` (DataGen's rate limit applies from the first record on, which would
 * make filling millions of keys slow); an infinite rate is no limit. One split: parallelism 1.
 */
export class PhasedGen<T> implements Source<T, PhasedSplit> {
  readonly boundedness;
  readonly #o: { generate: (position: number) => T; prefill: number; ratePerSecond: number; count?: number };

  constructor(options: { generate: (position: number) => T; prefill: number; ratePerSecond: number; count?: number }) {
    this.#o = options;
    this.boundedness = options.count === undefined ? ('unbounded' as const) : ('bounded' as const);
  }

  createSplits(ctx: { parallelism: number }): PhasedSplit[] {
    if (ctx.parallelism !== 1) throw new TypeError('PhasedGen runs with parallelism 1');
    return [{ next: 0, end: this.#o.count ?? null }];
  }

  createReader(): SourceReader<T, PhasedSplit> {
    return new PhasedReader(this.#o);
  }
}

const BATCH = 256;

class PhasedReader<T> implements SourceReader<T, PhasedSplit> {
  readonly #o: { generate: (position: number) => T; prefill: number; ratePerSecond: number };
  #next = 0;
  #end: number | null = null;
  #has = false;
  #rateStart = 0;
  #rateEmitted = 0;

  constructor(options: { generate: (position: number) => T; prefill: number; ratePerSecond: number }) {
    this.#o = options;
  }

  addSplits(splits: PhasedSplit[]): void {
    for (const s of splits) {
      this.#next = s.next;
      this.#end = s.end;
      this.#has = true;
    }
  }

  notifyNoMoreSplits(): void {}

  pollNext(output: SourceOutput<T>): InputStatus {
    if (!this.#has) return 'end';
    const stop = this.#end ?? Infinity;
    if (this.#next >= stop) return 'end';
    let allowed = BATCH;
    if (this.#next < this.#o.prefill) {
      allowed = Math.min(BATCH, this.#o.prefill - this.#next);
    } else if (Number.isFinite(this.#o.ratePerSecond)) {
      const now = performance.now();
      if (this.#rateStart === 0) this.#rateStart = now;
      allowed = Math.max(0, Math.min(BATCH, Math.floor(((now - this.#rateStart) / 1000) * this.#o.ratePerSecond) - this.#rateEmitted));
      if (allowed === 0) return 'nothing';
      this.#rateEmitted += Math.min(allowed, stop - this.#next);
    }
    const generate = this.#o.generate;
    for (let i = 0; i < allowed && this.#next < stop; i++) output.collect(generate(this.#next++));
    return 'more';
  }

  isAvailable(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, 1));
  }

  snapshotState(): PhasedSplit[] {
    return this.#has ? [{ next: this.#next, end: this.#end }] : [];
  }
}

export interface KeyedSumJobOptions {
  readonly keys: number;
  /** Bounded input of this many records; unbounded when omitted. */
  readonly records?: number;
  /**
   * 'sum': keyBy(key).sum('v') over DataGen records {key: i % keys, v: 1}.
   * 'latency': PhasedGen records {key: keyAt(i), v: 1, t: creation time}, a reduce that keeps the
   * latest record's t (sum('v') would keep the first record's), rate-limited after `keys` records.
   * 'restore': DataGen records {key: keyAt(i), v: 1}, keyBy(key).sum('v') (state full after `keys` records).
   */
  readonly shape: 'sum' | 'latency' | 'restore';
  /** 'latency' only: records per second after the prefill. */
  readonly ratePerSecond?: number;
}

/** The job, for the in-thread TaskManager: its sink reports to `probe`. */
export function keyedSumJob(options: KeyedSumJobOptions, probe: Probe): JobDefinition {
  const { keys } = options;
  const bounded = options.records !== undefined ? { count: options.records } : {};
  return defineJob((env) => {
    let source: Source<KeyedRecord, any>;
    if (options.shape === 'sum') source = DataGen.of((i): KeyedRecord => ({ key: i % keys, v: 1 }), bounded);
    else if (options.shape === 'restore') source = DataGen.of((i): KeyedRecord => ({ key: keyAt(i, keys), v: 1 }), bounded);
    else {
      source = new PhasedGen<KeyedRecord>({
        generate: (i) => ({ key: keyAt(i, keys), v: 1, t: epochNow() }),
        prefill: keys,
        ratePerSecond: options.ratePerSecond ?? 100_000,
        ...bounded,
      });
    }
    const keyed = env.fromSource(source, { name: 'Source: gen', uid: 'source' }).keyBy((r) => r.key);
    const summed =
      options.shape === 'latency'
        ? keyed.reduce((a, b) => ({ key: a.key, v: a.v + b.v, t: b.t }), { name: 'Sum', uid: 'sum' })
        : keyed.sum('v', { name: 'Sum', uid: 'sum' });
    summed.sinkTo(new ProbeSink(probe), { name: 'Sink: probe', uid: 'sink' });
  });
}
