import type { CheckpointFailureReport } from '../checkpoint/checkpoint-failure-reason.ts';
import type { CheckpointStorage } from '../checkpoint/checkpoint-storage.ts';
import type { Clock } from '../clock/clock.ts';
import type { WeirConfig } from '../config/configuration.ts';
import type { JobGraph } from '../graph/job-graph.ts';
import type { Logger } from '../log/logger.ts';
import type { TaskMetrics } from '../rpc/job-master-gateway.ts';
import type { CheckpointOptions, CheckpointType } from '../network/stream-event.ts';
import type { CheckpointIdCounter } from './checkpoint-id-counter.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';

/** Every subtask's figures: fresh from the TaskManagers that answered, the last report of those that did not (`silent`). */
export interface TaskDescriptions {
  readonly tasks: ReadonlyArray<TaskMetrics & { readonly silent: boolean }>;
  /** The TaskManagers that did not answer. */
  readonly silent: readonly number[];
}

export interface CheckpointCoordinatorDeps {
  readonly jobId: string;
  readonly config: WeirConfig;
  readonly jobGraph: JobGraph;
  readonly log: Logger;
  readonly clock: Clock;
  readonly storage: CheckpointStorage;
  readonly triggerSources: (checkpointId: number, timestamp: number, options: CheckpointOptions) => void;
  /** The sources' split enumerator states, by uid; called synchronously just before triggerSources. */
  readonly snapshotCoordinators?: (checkpointId: number) => Record<string, unknown>;
  readonly notifyComplete: (checkpointId: number, completion: { readonly unaligned: boolean }) => void;
  readonly notifyAborted: (checkpointId: number, reason: string) => void;
  /** What each subtask is doing right now (for the reason of an expired checkpoint). */
  readonly describeTasks: () => Promise<TaskDescriptions>;
  /** Too many consecutive checkpoint failures: fail the job over. */
  readonly failJob: (error: Error) => void;
  readonly onCompleted?: (checkpoint: CompletedCheckpoint) => void;
  /**
   * With high availability: publishes the completed checkpoint's pointer (a fenced write) after
   * `_metadata` and before anyone is told it is complete, so that sinks commit only what a new
   * leader would restore from. A rejection (a FencedWriteError when leadership is lost) means the
   * checkpoint does not complete.
   */
  readonly publish?: (checkpoint: CompletedCheckpoint) => Promise<void>;
  readonly onFailed?: (checkpointId: number, failure: CheckpointFailureReport) => void;
  /** Where every new checkpoint and savepoint id comes from (the HA store's, fenced, with high availability); in memory by default. */
  readonly idCounter?: CheckpointIdCounter;
}

export interface TriggerRequest {
  readonly type: CheckpointType;
  /** Savepoints: the directory to write to. */
  readonly targetDir?: string;
  /** Take it even if the periodic rules would not (savepoints, the final checkpoint). */
  readonly force?: boolean;
}
