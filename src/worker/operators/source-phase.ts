/**
 * Where a source operator is in its life, one object per phase (as the task's and the barrier
 * handler's states are): what a failure of its reader means depends on the phase.
 */
export interface SourcePhase {
  readonly name: 'reading' | 'closing';
  /** The reader failed (its isAvailable() settled with an error): `fail` fails the task, or not. */
  readerFailed(error: unknown, fail: (error: unknown) => void): void;
}

/** Open and polled: a reader failure is the task's. */
export const READING: SourcePhase = {
  name: 'reading',
  readerFailed: (error, fail) => fail(error),
};

/**
 * close() has begun: the reader is being closed on purpose, so what it fails with from then on
 * is no failure. A reader may settle isAvailable() with an error when it is closed (the CDC
 * reader's binlog client does): a source that closes as its task finishes (a stop-with-savepoint
 * among others) is stopping, not failing.
 */
export const CLOSING: SourcePhase = {
  name: 'closing',
  readerFailed: () => {},
};
