import type { OperatorListState } from '../../api/state.ts';
import type { AsyncFunction, AsyncOutputMode } from '../../api/async-function.ts';
import type { AsyncRetryStrategy } from '../../api/async-retry-strategy.ts';
import { systemClock, type Clock, type Timer } from '../../clock/clock.ts';
import { AbstractStreamOperator, type OperatorContext } from '../operators/stream-operator.ts';
import { AsyncRequest, type RequestController } from './async-request.ts';
import { AsyncRequestError } from './async-request-error.ts';
import { AsyncTimeoutError } from './async-timeout-error.ts';
import { OrderedQueue } from './ordered-queue.ts';
import type { QueueOutput, RecordEntry, StreamElementQueue } from './stream-element-queue.ts';
import { TimeoutQueue } from './timeout-queue.ts';
import { UnorderedQueue } from './unordered-queue.ts';

export interface AsyncWaitSpec {
  readonly mode: AsyncOutputMode;
  readonly fn: AsyncFunction<unknown, unknown>;
  readonly capacity: number;
  readonly timeoutMs: number;
  readonly onTimeout?: (input: unknown) => Iterable<unknown>;
  readonly retry?: AsyncRetryStrategy<unknown>;
}

/** A record (or a watermark) the operator has taken but not yet admitted: the queue was full. */
type Backlog = { readonly entry: RecordEntry } | { readonly watermark: number };

/** Operator state: the records waiting for results, asked for again after a restore (Flink's "_async_wait_operator_state_"). */
export const IN_FLIGHT_STATE = '_async-wait-in-flight';

/** What a checkpoint keeps of a waiting record. */
interface StoredRecord {
  readonly input: unknown;
  /** Absent: no timestamp. */
  readonly timestamp?: number;
}

/**
 * Async I/O (Flink's AsyncWaitOperator): a request per record, up to `capacity` waiting at once,
 * results emitted in order or as they complete (never across a watermark). Completions come back
 * as mail, so results are emitted between records and never inside a snapshot; a full queue
 * holds the task's input back. Every checkpoint keeps the records still waiting, which a restore
 * asks for again: their results come after the barrier, exactly once. At the end of input the
 * operator waits for every request; then it is the only work of the task, so results are emitted
 * as they come.
 */
export class AsyncWaitOperator extends AbstractStreamOperator {
  readonly #spec: AsyncWaitSpec;
  readonly #clock: Clock;
  readonly #queue: StreamElementQueue;
  readonly #backlog: Backlog[] = [];
  readonly #requests = new Set<AsyncRequest>();
  #ctx!: OperatorContext;
  #state!: OperatorListState<StoredRecord>;
  #timeouts!: TimeoutQueue<AsyncRequest>;
  #emitQueued = false;
  #throttled = false;
  /** A request that failed: thrown by the next emission, which fails the task. */
  #failure: unknown;
  /** Set while endInput waits for the last requests. */
  #draining: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  #closed = false;
  readonly #sink: QueueOutput = {
    record: (entry) => {
      const ts = this.#ctx.timestamps;
      for (const r of entry.results!) {
        ts.current = entry.timestamp;
        this.output.collect(r);
      }
    },
    watermark: (w) => super.processWatermark(w),
  };

  constructor(spec: AsyncWaitSpec, clock: Clock = systemClock) {
    super();
    this.#spec = spec;
    this.#clock = clock;
    this.#queue = spec.mode === 'ordered' ? new OrderedQueue() : new UnorderedQueue();
  }

  /** Records waiting for results now (complete or not), and taken but not yet asked for. */
  get waiting(): number {
    return this.#queue.size + this.#backlog.filter((b) => 'entry' in b).length;
  }

  override open(ctx: OperatorContext): void {
    super.open(ctx);
    this.#ctx = ctx;
    this.#timeouts = new TimeoutQueue(this.#clock, this.#spec.timeoutMs);
    this.#state = ctx.operatorState.getListState<StoredRecord>(IN_FLIGHT_STATE);
    const restored = [...this.#state.get()];
    this.#state.clear();
    for (const r of restored) this.#take({ input: r.input, timestamp: r.timestamp ?? -Infinity, results: undefined });
  }

  processElement(value: unknown): void {
    this.#take({ input: value, timestamp: this.#ctx.timestamps.current, results: undefined });
  }

  override processWatermark(watermark: number): void {
    if (this.#backlog.length > 0) this.#backlog.push({ watermark });
    else {
      this.#queue.addWatermark(watermark);
      this.#queue.emitCompleted(this.#sink);
    }
  }

  override prepareSnapshot(_checkpointId: number): void {
    const stored: StoredRecord[] = [];
    const keep = (e: RecordEntry) => stored.push(e.timestamp === -Infinity ? { input: e.input } : { input: e.input, timestamp: e.timestamp });
    for (const e of this.#queue.records()) keep(e);
    for (const b of this.#backlog) if ('entry' in b) keep(b.entry);
    this.#state.update(stored);
  }

  override endInput(): Promise<void> | void {
    this.#emit();
    if (this.#queue.isEmpty && this.#backlog.length === 0) return;
    return new Promise<void>((resolve, reject) => {
      this.#draining = { resolve, reject };
    });
  }

  override close(): void {
    this.#closed = true;
    this.#timeouts?.clear();
    for (const r of this.#requests) r.cancel();
    this.#requests.clear();
  }

  // ---- admission ----

  #take(entry: RecordEntry): void {
    if (this.#backlog.length > 0 || this.#queue.size >= this.#spec.capacity) this.#backlog.push({ entry });
    else this.#admit(entry);
    this.#throttle();
  }

  #admit(entry: RecordEntry): void {
    this.#queue.addRecord(entry);
    const { request } = new EntryRequest(this, entry);
    this.#requests.add(request);
    request.start();
    this.#timeouts.add(request);
  }

  /** Admits what the backlog holds while there is room: records in turn, watermarks behind them. */
  #admitBacklog(): void {
    while (this.#backlog.length > 0 && this.#queue.size < this.#spec.capacity) {
      const next = this.#backlog.shift()!;
      if ('entry' in next) this.#admit(next.entry);
      else this.#queue.addWatermark(next.watermark);
    }
  }

  #throttle(): void {
    const full = this.#backlog.length > 0 || this.#queue.size >= this.#spec.capacity;
    if (full === this.#throttled) return;
    this.#throttled = full;
    if (full) this.#ctx.inputThrottle.suspend();
    else this.#ctx.inputThrottle.resume();
  }

  // ---- completion ----

  /** @internal A request settled: its entry is complete (or the operator has failed). */
  completed(request: AsyncRequest, entry: RecordEntry, results: readonly unknown[] | { error: unknown }): void {
    if (this.#closed) return;
    this.#requests.delete(request);
    if (Array.isArray(results)) this.#queue.complete(entry, results);
    else this.#failure ??= (results as { error: unknown }).error;
    if (this.#draining) this.#emitWhileDraining();
    else if (!this.#emitQueued) {
      this.#emitQueued = true;
      this.#ctx.mailboxExecutor.execute('results of async requests', () => {
        this.#emitQueued = false;
        this.#emit();
      });
    }
  }

  /** Emits what may leave, lets the backlog in and the input go on when there is room. Throws a failed request's error. */
  #emit(): void {
    if (this.#closed) return;
    if (this.#failure !== undefined) throw this.#failure;
    for (;;) {
      this.#queue.emitCompleted(this.#sink);
      if (this.#backlog.length === 0 || this.#queue.size >= this.#spec.capacity) break;
      this.#admitBacklog();
    }
    this.#throttle();
  }

  /** endInput is the task's only work now: nothing else runs, so results go out as they come. */
  #emitWhileDraining(): void {
    const draining = this.#draining!;
    try {
      this.#emit();
    } catch (e) {
      this.#draining = undefined;
      draining.reject(e);
      return;
    }
    if (this.#queue.isEmpty && this.#backlog.length === 0) {
      this.#draining = undefined;
      draining.resolve();
    }
  }

  // ---- what requests need of the operator ----

  /** @internal */
  get spec(): AsyncWaitSpec {
    return this.#spec;
  }

  /** @internal */
  get clock(): Clock {
    return this.#clock;
  }

  /** @internal */
  get context(): OperatorContext {
    return this.#ctx;
  }
}

/** The side effects of one record's request: attempts of the user's function, retries, the outcome. */
class EntryRequest implements RequestController {
  readonly #op: AsyncWaitOperator;
  readonly #entry: RecordEntry;
  readonly request: AsyncRequest;

  constructor(op: AsyncWaitOperator, entry: RecordEntry) {
    this.#op = op;
    this.#entry = entry;
    this.request = new AsyncRequest(this);
  }

  startAttempt(attempt: number): AbortController | undefined {
    const fn = this.#op.spec.fn;
    // An AbortController (with its signal, an EventTarget) is about 1.7 KB and a microsecond to
    // make: per request, that was most of what the operator allocated, and the GCs it caused held
    // up the very timers and sockets the requests wait on. It is made only for a function that
    // declares the signal parameter; one that does not is called with the record alone.
    const abort = fn.length >= 2 ? new AbortController() : undefined;
    let pending: Promise<Iterable<unknown>>;
    try {
      pending = abort ? fn(this.#entry.input, abort.signal) : (fn as (input: unknown) => Promise<Iterable<unknown>>)(this.#entry.input);
    } catch (e) {
      pending = Promise.reject(e);
    }
    const request = this.request;
    Promise.resolve(pending).then(
      (results) => {
        if (typeof (results as Iterable<unknown> | null | undefined)?.[Symbol.iterator] !== 'function') {
          request.rejected(attempt, new TypeError(`the async function resolved to ${describeType(results)}, not an iterable of results (resolve to [] for none)`));
        } else request.resolved(attempt, Array.isArray(results) ? results : Array.from(results));
      },
      (error: unknown) => request.rejected(attempt, error),
    );
    return abort;
  }

  scheduleRetry(attempts: number): Timer {
    const request = this.request;
    return this.#op.clock.schedule(() => request.backoffElapsed(), this.#op.spec.retry!.backoffMs(attempts));
  }

  shouldRetryResults(results: readonly unknown[], attempts: number): boolean {
    const retry = this.#op.spec.retry;
    return retry?.retryOnResult !== undefined && retry.canRetry(attempts) && retry.retryOnResult(results);
  }

  shouldRetryError(error: unknown, attempts: number): boolean {
    const retry = this.#op.spec.retry;
    return retry?.retryOnError !== undefined && retry.canRetry(attempts) && retry.retryOnError(error);
  }

  succeed(results: readonly unknown[]): void {
    this.#op.completed(this.request, this.#entry, results);
  }

  fail(error: unknown, attempts: number): void {
    const ctx = this.#op.context;
    this.#op.completed(this.request, this.#entry, { error: new AsyncRequestError(ctx.operatorName, ctx.operatorUid, this.#entry.input, attempts, error) });
  }

  timeOut(attempts: number): void {
    const { onTimeout, timeoutMs } = this.#op.spec;
    const ctx = this.#op.context;
    if (!onTimeout) {
      this.#op.completed(this.request, this.#entry, { error: new AsyncTimeoutError(ctx.operatorName, ctx.operatorUid, this.#entry.input, timeoutMs, attempts) });
      return;
    }
    let results: unknown[];
    try {
      results = Array.from(onTimeout(this.#entry.input));
    } catch (e) {
      this.#op.completed(this.request, this.#entry, { error: e });
      return;
    }
    this.#op.completed(this.request, this.#entry, results);
  }
}

function describeType(value: unknown): string {
  return value === null ? 'null' : value === undefined ? 'undefined' : `a ${typeof value}`;
}
