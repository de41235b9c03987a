import { failureCounts, type CheckpointFailureReport } from '../checkpoint/checkpoint-failure-reason.ts';
import { CheckpointFailureError } from './checkpoint-failure-error.ts';

/**
 * Counts consecutive failed checkpoints (Flink's CheckpointFailureManager): only failures whose
 * reason counts (expired, a storage error), only checkpoints (savepoints are a person's request),
 * reset by every completed checkpoint. More than the tolerable number fails the job over.
 */
export class CheckpointFailureManager {
  readonly #tolerable: number;
  #consecutive = 0;

  constructor(tolerable: number) {
    this.#tolerable = tolerable;
  }

  get consecutiveFailures(): number {
    return this.#consecutive;
  }

  succeeded(): void {
    this.#consecutive = 0;
  }

  /** Returns the error (checkpointId is undefined for a checkpoint that failed before it got an id) to fail the job with when the limit is passed (and starts counting again). */
  failed(checkpointId: number | undefined, isSavepoint: boolean, failure: CheckpointFailureReport): CheckpointFailureError | undefined {
    if (isSavepoint || !failureCounts(failure.code)) return undefined;
    if (++this.#consecutive <= this.#tolerable) return undefined;
    const failures = this.#consecutive;
    this.#consecutive = 0;
    return new CheckpointFailureError(checkpointId, failures, this.#tolerable, failure.message);
  }
}
