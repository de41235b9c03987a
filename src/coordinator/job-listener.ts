import type { CheckpointFailureReport } from '../checkpoint/checkpoint-failure-reason.ts';
import type { SerializedError } from '../rpc/serialized-error.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import type { JobStatus } from './job-status.ts';

/** What a job's caller may follow: its status, checkpoints, restarts and restores. */
export interface JobListener {
  onStatus?(status: JobStatus): void;
  onCheckpointCompleted?(checkpoint: CompletedCheckpoint): void;
  onCheckpointFailed?(checkpointId: number, failure: CheckpointFailureReport): void;
  onRestart?(info: { attempt: number; cause: SerializedError; delayMs: number }): void;
  onRestored?(info: { checkpointId: number; path: string; isSavepoint: boolean; sourcePositions: Record<string, unknown[]> }): void;
}
