import type { CheckpointFailureCode } from '../checkpoint/checkpoint-failure-reason.ts';
import type { CheckpointType } from '../network/stream-event.ts';

/** A checkpoint or savepoint that failed before it had an id (its id counter failed or did not answer): nothing went out to the sources. */
export class CheckpointNotStartedError extends Error {
  readonly type: CheckpointType;
  readonly code: CheckpointFailureCode;
  /** Where the ids are kept (the HA store's counter). */
  readonly counter: string;

  constructor(type: CheckpointType, code: CheckpointFailureCode, counter: string, cause: string) {
    super(`${type} not started: taking its id from ${counter} failed: ${cause}`);
    this.name = 'CheckpointNotStartedError';
    this.type = type;
    this.code = code;
    this.counter = counter;
  }
}
