import type { WeirConfig } from '../config/configuration.ts';
import type { CheckpointStorage, CheckpointStorageWorkerView } from './checkpoint-storage.ts';
import { SchemeRoutingCheckpointStorage } from './scheme-routing-checkpoint-storage.ts';
import { SchemeRoutingTaskStateStorage } from './scheme-routing-task-state-storage.ts';

/**
 * The checkpoint storage of a job, picked by execution.checkpointing.dir's scheme: a directory
 * (or none: a temporary one), or `nats-obj://<bucket>/<prefix>` for the JetStream object store.
 */
export function createCheckpointStorage(jobId: string, config: WeirConfig): CheckpointStorage {
  return new SchemeRoutingCheckpointStorage(jobId, config);
}

/** A TaskManager's view of the same: it writes its subtasks' state where each checkpoint's location says. */
export function createTaskStateStorage(config: WeirConfig): CheckpointStorageWorkerView {
  return new SchemeRoutingTaskStateStorage(config);
}
