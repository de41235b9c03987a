import type { JobPlan } from '../api/define-job.ts';
import { createCheckpointStorage } from '../checkpoint/create-checkpoint-storage.ts';
import type { CheckpointStorage } from '../checkpoint/checkpoint-storage.ts';
import { systemClock, type Clock } from '../clock/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { FromTaskExecutor } from '../rpc/control-protocol.ts';
import { describeActivity } from '../network/task-activity.ts';
import { CheckpointCoordinator } from './checkpoint-coordinator.ts';
import type { CheckpointIdCounter } from './checkpoint-id-counter.ts';
import { CheckpointRestorer, type Restore } from './checkpoint-restorer.ts';
import type { CompletedCheckpoint } from './completed-checkpoint.ts';
import { ExecutionDeployer } from './execution-deployer.ts';
import { ExecutionGraph } from './execution-graph.ts';
import type { JobListener } from './job-listener.ts';
import { SourceCoordinators } from './source-coordinators.ts';
import { WatermarkAlignmentCoordinator } from './watermark-alignment-coordinator.ts';
import { SlotExecutorPool, type Deployment } from './slot-executor-pool.ts';

/** A JobMaster's collaborators, wired to each other. */
export interface JobServices {
  readonly clock: Clock;
  readonly storage: CheckpointStorage;
  readonly execution: ExecutionGraph;
  readonly pool: SlotExecutorPool;
  readonly deployer: ExecutionDeployer;
  readonly sources: SourceCoordinators;
  readonly checkpoints: CheckpointCoordinator;
  readonly restorer: CheckpointRestorer;
  readonly alignment: WatermarkAlignmentCoordinator;
}

export interface JobServicesOptions {
  readonly jobId: string;
  readonly plan: JobPlan;
  readonly deployment: Deployment;
  readonly log: Logger;
  readonly listener: JobListener | undefined;
  /** The current attempt: calls on the slot executors carry it. */
  readonly attempt: () => number;
  readonly onMessage: (message: FromTaskExecutor) => void;
  /** A collaborator's failure (a lost TaskManager, an enumerator, the checkpoints): the job's state decides. */
  readonly fail: (error: Error) => void;
  readonly onRestored: (restore: Restore) => void;
  /** See CheckpointCoordinatorDeps.publish. */
  readonly publishCheckpoint?: (checkpoint: CompletedCheckpoint) => Promise<void>;
  /** See CheckpointCoordinatorDeps.idCounter. */
  readonly checkpointIdCounter?: CheckpointIdCounter;
}

/**
 * Builds the collaborators of one JobMaster: checkpoint storage, the slot executor pool, the
 * deployer, the source coordinators, the checkpoint coordinator and the restorer, each given
 * what it needs of the others.
 */
export function createJobServices(o: JobServicesOptions): JobServices {
  const { jobId, plan, log } = o;
  const config = plan.config;
  const graph = plan.jobGraph;
  const clock = systemClock;
  const storage = createCheckpointStorage(jobId, config);
  const execution = new ExecutionGraph(graph);
  const pool: SlotExecutorPool = new SlotExecutorPool({
    plan,
    deployment: o.deployment,
    log,
    clock,
    onMessage: o.onMessage,
    onLost: o.fail,
    lastReports: (tm) => execution.reportsOn(tm).map(([e, r]) => `'${e.vertex.name}' ${e.subtask + 1}/${e.vertex.parallelism}: ${r ? describeActivity(r, Date.now()) : e.status}`),
    lastMetrics: () => execution.metrics(),
    taskManagerOf: (_vertexId, subtask) => deployer.taskManagerOf(subtask),
  });
  const deployer = new ExecutionDeployer(graph, pool, {
    segments: plan.config['taskmanager.network.memory.buffers-per-channel'],
    segmentSize: plan.config['taskmanager.memory.segment-size'],
  });
  const sources = new SourceCoordinators({
    jobId,
    graph,
    checkpointing: config['execution.checkpointing.interval'] !== null && config['execution.checkpointing.mode'] !== 'at-most-once',
    atMostOnce: config['execution.checkpointing.mode'] === 'at-most-once',
    log,
    executorOf: (_vertexId, subtask) => pool.executor(deployer.taskManagerOf(subtask)),
    failJob: (attempt, e) => void (attempt === o.attempt() && o.fail(e)),
    setBacklog: (vertexId, backlog) => checkpoints.setBacklog(vertexId, backlog),
  });
  const checkpoints: CheckpointCoordinator = new CheckpointCoordinator({
    jobId,
    config,
    jobGraph: graph,
    log,
    clock,
    storage,
    triggerSources: (id, timestamp, options) => pool.all().triggerCheckpoint({ attempt: o.attempt(), checkpointId: id, timestamp, options }),
    snapshotCoordinators: (id) => sources.snapshot(id),
    notifyComplete: (id, completion) => {
      checkpoints.store.markCommitNotified(id);
      sources.notifyCheckpointComplete(id, completion);
      pool.all().notifyCheckpointComplete({ attempt: o.attempt(), checkpointId: id });
    },
    notifyAborted: (id, reason) => pool.all().notifyCheckpointAborted({ attempt: o.attempt(), checkpointId: id, reason }),
    describeTasks: () => pool.describe(),
    failJob: o.fail,
    onCompleted: (c) => {
      sources.logProgress(c.id);
      o.listener?.onCheckpointCompleted?.(c);
    },
    onFailed: (id, failure) => o.listener?.onCheckpointFailed?.(id, failure),
    ...(o.publishCheckpoint ? { publish: o.publishCheckpoint } : {}),
    ...(o.checkpointIdCounter ? { idCounter: o.checkpointIdCounter } : {}),
  });
  const restorer = new CheckpointRestorer({
    jobId,
    graph,
    storage,
    store: checkpoints.store,
    stats: checkpoints.stats,
    log,
    fallbackPastCommitted: config['execution.checkpointing.fallback-past-committed'],
    claimMode: config['execution.state-recovery.claim-mode'],
    onRestored: o.onRestored,
  });
  const alignment = new WatermarkAlignmentCoordinator({ graph, executorOf: (_vertexId, subtask) => pool.executor(deployer.taskManagerOf(subtask)) });
  return { clock, storage, execution, pool, deployer, sources, checkpoints, restorer, alignment };
}
