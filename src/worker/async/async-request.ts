import type { Timer } from '../../clock/clock.ts';

/** The side effects of one request, in the operator that owns it. */
export interface RequestController {
  /** Starts attempt number `attempt` (from 1); its outcome comes back as resolved/rejected with that number. Its AbortController, when the function takes a signal. */
  startAttempt(attempt: number): AbortController | undefined;
  /** Calls backoffElapsed() after the strategy's delay following attempt `attempts`. */
  scheduleRetry(attempts: number): Timer;
  shouldRetryResults(results: readonly unknown[], attempts: number): boolean;
  shouldRetryError(error: unknown, attempts: number): boolean;
  succeed(results: readonly unknown[]): void;
  fail(error: unknown, attempts: number): void;
  /** The overall timeout passed after `attempts` attempts. */
  timeOut(attempts: number): void;
}

/** One state of a request: each event returns the next state. */
interface RequestState {
  resolved(attempt: number, results: readonly unknown[], c: RequestController): RequestState;
  rejected(attempt: number, error: unknown, c: RequestController): RequestState;
  backoffElapsed(c: RequestController): RequestState;
  timedOut(c: RequestController): RequestState;
  /** The task ends: nothing of the request may outlive it. */
  cancel(): RequestState;
}

/** The request completed, failed, timed out or was cancelled: later events are ignored (a result after the timeout among them). */
const SETTLED: RequestState = {
  resolved: () => SETTLED,
  rejected: () => SETTLED,
  backoffElapsed: () => SETTLED,
  timedOut: () => SETTLED,
  cancel: () => SETTLED,
};

class Attempting implements RequestState {
  constructor(
    readonly attempt: number,
    readonly abort: AbortController | undefined,
  ) {}

  resolved(attempt: number, results: readonly unknown[], c: RequestController): RequestState {
    if (attempt !== this.attempt) return this;
    if (c.shouldRetryResults(results, attempt)) return new BackingOff(attempt, c.scheduleRetry(attempt));
    c.succeed(results);
    return SETTLED;
  }

  rejected(attempt: number, error: unknown, c: RequestController): RequestState {
    if (attempt !== this.attempt) return this;
    if (c.shouldRetryError(error, attempt)) return new BackingOff(attempt, c.scheduleRetry(attempt));
    c.fail(error, attempt);
    return SETTLED;
  }

  backoffElapsed(): RequestState {
    return this;
  }

  timedOut(c: RequestController): RequestState {
    this.abort?.abort(new Error('the async request timed out'));
    c.timeOut(this.attempt);
    return SETTLED;
  }

  cancel(): RequestState {
    this.abort?.abort(new Error('the task ended'));
    return SETTLED;
  }
}

class BackingOff implements RequestState {
  constructor(
    readonly attempts: number,
    readonly timer: Timer,
  ) {}

  resolved(): RequestState {
    return this;
  }

  rejected(): RequestState {
    return this;
  }

  backoffElapsed(c: RequestController): RequestState {
    const next = this.attempts + 1;
    return new Attempting(next, c.startAttempt(next));
  }

  timedOut(c: RequestController): RequestState {
    this.timer.cancel();
    c.timeOut(this.attempts);
    return SETTLED;
  }

  cancel(): RequestState {
    this.timer.cancel();
    return SETTLED;
  }
}

/**
 * One record's request through its attempts (Flink's RetryableResultHandlerDelegator with the
 * AsyncWaitOperator's timeout): attempting, backing off before the next attempt, settled. The
 * first event that settles it wins; whatever comes after is dropped.
 */
export class AsyncRequest {
  #state: RequestState;
  readonly #c: RequestController;

  constructor(controller: RequestController) {
    this.#c = controller;
    this.#state = SETTLED;
  }

  /** Makes the first attempt. */
  start(): void {
    this.#state = new Attempting(1, this.#c.startAttempt(1));
  }

  resolved(attempt: number, results: readonly unknown[]): void {
    this.#state = this.#state.resolved(attempt, results, this.#c);
  }

  rejected(attempt: number, error: unknown): void {
    this.#state = this.#state.rejected(attempt, error, this.#c);
  }

  backoffElapsed(): void {
    this.#state = this.#state.backoffElapsed(this.#c);
  }

  timedOut(): void {
    this.#state = this.#state.timedOut(this.#c);
  }

  cancel(): void {
    this.#state = this.#state.cancel();
  }

  /** Settled: completed, failed, timed out or cancelled (or not started yet). */
  get settled(): boolean {
    return this.#state === SETTLED;
  }
}
