import type { ActivityReport } from '../network/task-activity.ts';

/**
 * Why a checkpoint did not complete (Flink's CheckpointFailureReason): a code, whether it counts
 * against execution.checkpointing.tolerable-failed-checkpoints, and what it means. Failures that
 * say nothing about the job's health (overtaken by a newer checkpoint, the job failing over for
 * another reason) do not count.
 */
export const CHECKPOINT_FAILURE_REASONS = {
  CHECKPOINT_EXPIRED: { counts: true, message: 'the checkpoint expired before completing' },
  TASK_CHECKPOINT_FAILURE: { counts: true, message: 'a subtask could not write its state' },
  FINALIZE_CHECKPOINT_FAILURE: { counts: true, message: 'writing the checkpoint metadata failed' },
  IO_EXCEPTION: { counts: true, message: 'the checkpoint could not start: its id could not be taken from the checkpoint id counter (an I/O problem with the HA store)' },
  CHECKPOINT_DECLINED_TASK_NOT_READY: { counts: false, message: 'a subtask was not running when the checkpoint was triggered' },
  CHECKPOINT_DECLINED_SUBSUMED: { counts: false, message: "a newer checkpoint's barrier overtook it during alignment" },
  CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER: { counts: false, message: 'an upstream subtask cancelled it' },
  CHECKPOINT_SUBSUMED: { counts: false, message: 'a newer checkpoint completed first' },
  CHECKPOINT_COORDINATOR_SUSPEND: { counts: false, message: 'the job failed over or ended' },
} as const satisfies Record<string, { readonly counts: boolean; readonly message: string }>;

export type CheckpointFailureCode = keyof typeof CHECKPOINT_FAILURE_REASONS;

/** A subtask that had not acknowledged an expired checkpoint, and what it was doing. */
export interface PendingSubtask {
  readonly vertex: string;
  readonly subtask: number;
  readonly parallelism: number;
  readonly isSource: boolean;
  /** Unknown when its TaskManager never reported. */
  readonly report: ActivityReport | undefined;
  /** Its TaskManager did not answer: `report` is its last one. */
  readonly silent: boolean;
}

/**
 * Why one checkpoint failed, as the coordinator reports it to listeners and stats. Not an error:
 * CheckpointFailureError is what fails the job once too many of these count.
 */
export interface CheckpointFailureReport {
  readonly code: CheckpointFailureCode;
  /** The whole reason as people read it: what failed, where, and what each subtask was doing. */
  readonly message: string;
  /** CHECKPOINT_EXPIRED: the subtasks that had not acknowledged, as they were at `at` (ms since the epoch). */
  readonly pending?: readonly PendingSubtask[];
  readonly at?: number;
}

export function failureCounts(code: CheckpointFailureCode): boolean {
  return CHECKPOINT_FAILURE_REASONS[code].counts;
}
