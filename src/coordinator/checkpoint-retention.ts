import type { CheckpointStorage } from '../checkpoint/checkpoint-storage.ts';
import type { WeirConfig } from '../config/configuration.ts';
import type { CompletedCheckpointStore } from './completed-checkpoint-store.ts';
import type { JobStatus } from './job-status.ts';

/**
 * Flink's retention when a job ends: a finished job discards its checkpoints, a failed one keeps
 * them, a cancelled one follows externalized-checkpoint-retention. Checkpoints in a temporary
 * location of the job's own are never kept (nobody could find them), unless asked (weir verify
 * reads the final one); a suspended job keeps them all. Returns whether they were kept.
 */
export async function applyRetention(
  status: JobStatus,
  o: { readonly config: WeirConfig; readonly storage: CheckpointStorage; readonly store: CompletedCheckpointStore; readonly retainOnFinish: boolean },
): Promise<boolean> {
  // A suspended job is not over: the leader that runs it on restores from these.
  if (status === 'SUSPENDED') return true;
  const retainOnCancel = retainsOnCancel(o.config);
  const keep = status === 'FAILED' || (status === 'CANCELED' && retainOnCancel) || (status === 'FINISHED' && o.retainOnFinish);
  if (keep && (!o.storage.temporary || o.retainOnFinish)) return true;
  await o.store.discardAll(`job ${status.toLowerCase()}`);
  await o.storage.discardJob();
  return false;
}

/** Whether a cancelled job keeps its checkpoints (externalized-checkpoint-retention). */
export function retainsOnCancel(config: WeirConfig): boolean {
  return config['execution.checkpointing.externalized-checkpoint-retention'] === 'RETAIN_ON_CANCELLATION';
}
