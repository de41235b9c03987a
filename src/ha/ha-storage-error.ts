/**
 * Why an HA store operation failed, other than a lost compare-and-set: UNAVAILABLE (the store
 * cannot be reached or did not answer in time), CORRUPTED (a record or blob is not what was
 * written), FAILED (the store refused for another reason).
 */
export type HaStorageFailure = 'UNAVAILABLE' | 'CORRUPTED' | 'FAILED';

export class HaStorageError extends Error {
  readonly reason: HaStorageFailure;
  readonly operation: string;
  readonly key: string;
  readonly store: string;
  constructor(reason: HaStorageFailure, operation: string, key: string, store: string, problem: string, options?: { cause?: unknown }) {
    super(`${operation} '${key}' on ${store} failed (${reason}): ${problem}`, options);
    this.name = 'HaStorageError';
    this.reason = reason;
    this.operation = operation;
    this.key = key;
    this.store = store;
  }
}
