import type { CheckpointFailureCode } from '../../checkpoint/checkpoint-failure-reason.ts';

/** Why a checkpoint cannot complete in this task: its failure code and the sentence for people. */
export interface AbortReason {
  readonly code: CheckpointFailureCode;
  readonly message: string;
}
