import type { CheckpointMetadata } from '../checkpoint/checkpoint-metadata.ts';
import type { CheckpointStorage } from '../checkpoint/checkpoint-storage.ts';
import { writtenForOfName } from '../checkpoint/incremental/job-location-contents.ts';
import { sharedFileLocations, sharedStateFiles } from '../checkpoint/incremental/shared-state-files.ts';
import type { Logger } from '../log/logger.ts';
import type { CompletedCheckpointStore } from './completed-checkpoint-store.ts';

/**
 * A JobManager that starts again (a new HA leader, or a JobMaster given its own job's checkpoint)
 * takes back the retained checkpoints of its job, as Flink recovers its CompletedCheckpointStore
 * and rebuilds its SharedStateRegistry from them: every completed checkpoint in the job's location
 * up to the one restored is retained again, oldest first (so retention subsumes the oldest as it
 * did), and counts the shared files its `_metadata` names. Retention then never deletes a file a
 * retained checkpoint still uses, and deletes each once none does.
 *
 * What the last leader left behind is deleted now, before this JobMaster triggers a checkpoint:
 * shared files no `_metadata` in the location names (written for checkpoints that never completed,
 * or whose deletion it did not finish; from an object store's listing, which may miss a
 * checkpoint, only those written for checkpoints after the restored one) and checkpoint
 * locations without a `_metadata`. Checkpoints
 * newer than the one restored (the user chose an older one) are neither retained nor deleted,
 * and their shared files stay.
 */
export async function recoverOwnCheckpoints(
  storage: Pick<CheckpointStorage, 'scanJobLocation' | 'discard'>,
  store: CompletedCheckpointStore,
  restored: { readonly metadata: CheckpointMetadata; readonly location: string },
  log: Logger,
): Promise<void> {
  const contents = await storage.scanJobLocation();
  const byId = new Map(contents.completed.filter((c) => c.metadata.type === 'checkpoint').map((c) => [c.metadata.checkpointId, c]));
  // The listing of an object store may miss what it holds; the restored checkpoint was just read.
  byId.set(restored.metadata.checkpointId, restored);
  const retained = [...byId.values()].filter((c) => c.metadata.checkpointId <= restored.metadata.checkpointId).sort((a, b) => a.metadata.checkpointId - b.metadata.checkpointId);
  // Only checkpoints with shared files: full ones' directories are left where they are, as before.
  if (!retained.some((c) => sharedStateFiles(c.metadata).length > 0)) return;
  for (const { metadata, location } of retained) {
    await store.adopt({ id: metadata.checkpointId, type: 'checkpoint', directory: location, triggeredAt: metadata.triggeredAt, completedAt: metadata.completedAt, stateBytes: 0, metadata });
  }
  const named = new Set([...byId.values()].flatMap((c) => sharedFileLocations(c.metadata, c.location)));
  // From a listing that may miss a checkpoint, only files written for checkpoints after the one
  // restored are surely nobody's (no checkpoint names a file written for a later one).
  const after = (f: string) => (writtenForOfName(f) ?? 0) > restored.metadata.checkpointId;
  const orphans = contents.sharedFiles.filter((f) => !named.has(f) && store.shared.references(f) === 0 && (contents.complete || after(f)));
  await store.discardShared(orphans);
  for (const location of contents.incomplete) await storage.discard(location).catch(() => {});
  log.info(`took back ${store.all().length} retained checkpoint(s) of this job, ${store.shared.files.length} shared file(s) in use`, {
    checkpointId: restored.metadata.checkpointId,
    orphanedSharedFiles: orphans.length,
    incompleteCheckpoints: contents.incomplete.length,
  });
}
