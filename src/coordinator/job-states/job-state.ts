import type { JobPlan } from '../../api/define-job.ts';
import type { CheckpointStorage } from '../../checkpoint/checkpoint-storage.ts';
import type { Clock } from '../../clock/clock.ts';
import type { Logger } from '../../log/logger.ts';
import type { SerializedError } from '../../rpc/serialized-error.ts';
import type { TaskStatus } from '../../network/task-status.ts';
import type { CheckpointCoordinator } from '../checkpoint-coordinator.ts';
import type { CheckpointRestorer, Restore } from '../checkpoint-restorer.ts';
import type { CompletedCheckpoint } from '../completed-checkpoint.ts';
import type { ExecutionDeployer } from '../execution-deployer.ts';
import type { ExecutionEntry, ExecutionGraph } from '../execution-graph.ts';
import type { EndStatus, JobStatus } from '../job-status.ts';
import type { RestartStrategy } from '../restart-strategy.ts';
import type { SourceCoordinators } from '../source-coordinators.ts';
import type { SlotExecutorPool } from '../slot-executor-pool.ts';
import type { WatermarkAlignmentCoordinator } from '../watermark-alignment-coordinator.ts';

/**
 * One state of a job's lifecycle (Flink's adaptive scheduler states). Events go to the current
 * state, which reacts and may move the job to the next one; a state that is no longer current
 * ignores what its own async work brings back (see JobContext.isCurrent).
 */
export interface JobState {
  readonly status: JobStatus;
  /** Where a state shares its status with others, what it is doing: for messages that refuse a request. */
  readonly phase?: string;
  /** A subtask, a TaskManager, a split enumerator or the checkpoints failed. */
  onFailure(cause: SerializedError): void;
  /** A subtask of the current attempt reports a new status. */
  onTaskStatus(entry: ExecutionEntry, status: TaskStatus, error: SerializedError | undefined): void;
  cancel(): void;
  /** Stop with savepoint; only a running job can. */
  stopWithSavepoint?(targetDir: string, drain: boolean): Promise<CompletedCheckpoint>;
}

/** What the states work with: the JobMaster's collaborators and the moves between states. */
export interface JobContext {
  readonly jobId: string;
  readonly plan: JobPlan;
  readonly log: Logger;
  readonly clock: Clock;
  readonly storage: CheckpointStorage;
  readonly checkpoints: CheckpointCoordinator;
  readonly pool: SlotExecutorPool;
  readonly deployer: ExecutionDeployer;
  readonly restorer: CheckpointRestorer;
  readonly sources: SourceCoordinators;
  readonly execution: ExecutionGraph;
  readonly alignment: WatermarkAlignmentCoordinator;
  readonly restartStrategy: RestartStrategy;
  readonly attempt: number;
  /** Whether `state` is still the job's state: async work started by a state ends quietly otherwise. */
  isCurrent(state: JobState): boolean;
  /** How the job ended, once it has. */
  endStatus(): EndStatus | undefined;
  /** The savepoint or checkpoint the job was started from, read again (a restart before any checkpoint completed). */
  restoreOriginal(): Promise<Restore | undefined>;
  /** Prepares and deploys the next attempt from `restore` (or afresh); the job is RUNNING when it goes out. */
  deploy(restore: Restore | undefined): Promise<void>;
  goToRunning(): void;
  goToRestarting(cause: SerializedError, delayMs: number): void;
  goToFinishing(): void;
  goToStoppingWithSavepoint(targetDir: string, drain: boolean): Promise<CompletedCheckpoint>;
  /** Ends the job: every TaskManager is stopped, checkpoints are kept or removed as Flink's retention says. */
  finish(status: EndStatus, error: Error | undefined): void;
  /** The restart strategy said no (or the error says the job cannot run as defined): the job fails. */
  fail(cause: SerializedError, reason: string): void;
  /** Every subtask of the attempt is running: checkpoints may start, waiters are told. */
  allRunning(): void;
}
