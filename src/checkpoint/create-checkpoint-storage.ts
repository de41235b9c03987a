import type { WeirConfig } from '../config/configuration.ts';
import type { CheckpointStorage, CheckpointStorageWorkerView } from './checkpoint-storage.ts';
import { SchemeRoutingCheckpointStorage } from './scheme-routing-checkpoint-storage.ts';
import { SchemeRoutingCheckpointStorageWorkerView } from './scheme-routing-checkpoint-storage-worker-view.ts';

/**
 * The checkpoint storage of a job, picked by execution.checkpointing.dir's scheme: a directory
 * (or none: a temporary one), or `nats-obj://<bucket>/<prefix>` for the JetStream object store.
 */
export function createCheckpointStorage(jobId: string, config: WeirConfig): CheckpointStorage {
  return new SchemeRoutingCheckpointStorage(jobId, config);
}

/** The worker side of the same (Flink's CheckpointStorageWorkerView): it writes the subtasks' state where each checkpoint's location says. */
export function createCheckpointStorageWorkerView(config: WeirConfig): CheckpointStorageWorkerView {
  return new SchemeRoutingCheckpointStorageWorkerView(config);
}
