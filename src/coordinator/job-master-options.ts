import type { JobPlan } from '../api/define-job.ts';
import type { Logger } from '../log/logger.ts';
import type { CheckpointIdCounter } from './checkpoint-id-counter.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import type { FaultInjectionOptions } from './fault-injector.ts';
import type { JobListener } from './job-listener.ts';
import type { Deployment } from './slot-executor-pool.ts';
import type { CompiledJob } from './worker-bundle.ts';

export interface JobMasterOptions {
  readonly jobId?: string;
  readonly plan: JobPlan;
  readonly deployment: Deployment;
  /** A savepoint or retained checkpoint directory (or its `_metadata`) to start from. */
  readonly restoreFrom?: string;
  readonly allowNonRestoredState?: boolean;
  readonly log?: Logger;
  readonly listener?: JobListener;
  readonly faults?: FaultInjectionOptions;
  /** Keep the completed checkpoints when the job finishes (weir verify reads the final one). */
  readonly retainCheckpointsOnFinish?: boolean;
  /** The job module as the installed package compiled it: removed when the job ends. */
  readonly compiled?: CompiledJob;
  /**
   * The number of the first attempt (default 0). A job that a new leader recovers keeps its id, so
   * its attempts must not reuse the numbers of the old leader's: a sink names its files by job id
   * and attempt (the transactional file sink), and a repeated name would overwrite committed output.
   */
  readonly firstAttempt?: number;
  /** High availability: a completed checkpoint's pointer is published (fenced) before sinks commit. */
  readonly publishCheckpoint?: (checkpoint: CompletedCheckpoint) => Promise<void>;
  /** High availability: every checkpoint id from the HA store's counter, fenced by the leader's epoch (in memory otherwise). */
  readonly checkpointIdCounter?: CheckpointIdCounter;
}
