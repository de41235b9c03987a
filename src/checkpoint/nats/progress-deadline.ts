/** An object store operation that made no progress for too long (a JetStream cluster without quorum answers nothing). */
export class ObjectStoreTimeoutError extends Error {
  readonly bucket: string;
  readonly object: string | undefined;
  readonly operation: string;
  readonly timeoutMs: number;

  constructor(operation: string, bucket: string, object: string | undefined, timeoutMs: number) {
    super(`${operation} ${object ? `'${object}' in ` : ''}NATS object store '${bucket}' made no progress for ${timeoutMs} ms (state.checkpoints.nats.timeout)`);
    this.name = 'ObjectStoreTimeoutError';
    this.operation = operation;
    this.bucket = bucket;
    this.object = object;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A deadline that moves with progress: the NATS clients give an object store operation no timeout
 * of their own once it streams chunks, so a stream whose RAFT group lost its quorum would hang a
 * checkpoint or a restore forever. Each chunk read or acknowledged calls touch(); silence for
 * `ms` rejects `expired`, which the operation is raced against.
 */
export class ProgressDeadline {
  readonly expired: Promise<never>;
  readonly #ms: number;
  readonly #error: () => Error;
  #timer: NodeJS.Timeout | undefined;
  #reject: ((e: Error) => void) | undefined;

  constructor(ms: number, error: () => Error) {
    this.#ms = ms;
    this.#error = error;
    this.expired = new Promise<never>((_, reject) => (this.#reject = reject));
    this.expired.catch(() => {});
    this.touch();
  }

  touch(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#reject?.(this.#error()), this.#ms);
  }

  /** `op` unless the deadline passes first; the deadline ends with it either way. */
  async race<T>(op: Promise<T>): Promise<T> {
    try {
      return await Promise.race([op, this.expired]);
    } finally {
      clearTimeout(this.#timer);
      this.#reject = undefined;
    }
  }
}
