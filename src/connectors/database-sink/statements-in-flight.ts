/**
 * The statements a database sink's writer has sent and not yet seen settle (Flink's JDBC writer
 * buffers; here they are queued on a connection): at most `max` in flight, beyond which the
 * writer is not ready (backpressure), and the first failure, which every later statement skips
 * and every later call reports.
 */
export class StatementsInFlight {
  readonly #max: number;
  #count = 0;
  #drained: Array<() => void> = [];
  #failure: Promise<Error> | undefined;

  constructor(max: number) {
    this.#max = max;
  }

  /** Whether statements were sent that have not settled. */
  get busy(): boolean {
    return this.#count > 0;
  }

  /** The writer's failure, once there is one. */
  get failure(): Promise<Error> | undefined {
    return this.#failure;
  }

  fail(error: Promise<Error>): void {
    this.#failure ??= error;
  }

  /** A promise while the writer cannot take more; a rejected one once it failed. */
  ready(): Promise<void> | undefined {
    if (this.#failure) return this.#failure.then((e) => Promise.reject(e));
    if (this.#count < this.#max) return undefined;
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /**
   * Runs `send` after `previous` (statements of one connection go one at a time), unless the
   * writer has failed by then; a failure becomes the writer's, as `diagnose` describes it.
   */
  queue(previous: Promise<void>, send: () => Promise<void>, diagnose: (e: unknown) => Promise<Error>): Promise<void> {
    this.#count++;
    return previous
      .then(async () => {
        if (!this.#failure) await send();
      })
      .catch((e: unknown) => this.fail(diagnose(e)))
      .finally(() => {
        this.#count--;
        if (this.#count < this.#max) for (const wake of this.#drained.splice(0)) wake();
      });
  }
}
