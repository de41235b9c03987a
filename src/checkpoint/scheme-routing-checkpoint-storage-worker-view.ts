import type { WeirConfig } from '../config/configuration.ts';
import type { CheckpointStorageWorkerView, StagedRestore } from './checkpoint-storage.ts';
import { isNatsObjectLocation } from './checkpoint-location.ts';
import { fileCheckpointStorageWorkerView } from './file-checkpoint-storage-worker-view.ts';
import { ObjectStoreCheckpointStorageWorkerView } from './object-store-checkpoint-storage-worker-view.ts';
import type { TaskRestoreState } from './state-handles.ts';

/**
 * A subtask's view of checkpoint storage, by the scheme of each location it is given: state is
 * written where the checkpoint's location is and read from where the restored one lies, so a job
 * that checkpoints to the object store can start from a savepoint in a directory, and back.
 */
export class SchemeRoutingCheckpointStorageWorkerView implements CheckpointStorageWorkerView {
  readonly #config: WeirConfig;
  #objects: ObjectStoreCheckpointStorageWorkerView | undefined;

  constructor(config: WeirConfig) {
    this.#config = config;
  }

  writeSnapshot(...args: Parameters<CheckpointStorageWorkerView['writeSnapshot']>): ReturnType<CheckpointStorageWorkerView['writeSnapshot']> {
    return this.#for(args[0].location).writeSnapshot(...args);
  }

  writeChannelState(...args: Parameters<CheckpointStorageWorkerView['writeChannelState']>): ReturnType<CheckpointStorageWorkerView['writeChannelState']> {
    return this.#for(args[0].location).writeChannelState(...args);
  }

  readChannelState(...args: Parameters<CheckpointStorageWorkerView['readChannelState']>): unknown[] {
    return this.#for(args[1]).readChannelState(...args);
  }

  restoreKeyed(...args: Parameters<CheckpointStorageWorkerView['restoreKeyed']>): Promise<void> {
    return this.#for(args[2]).restoreKeyed(...args);
  }

  async stageRestore(restore: TaskRestoreState): Promise<StagedRestore> {
    const storage = this.#for(restore.directory);
    return storage.stageRestore ? storage.stageRestore(restore) : { location: restore.directory, discard: async () => {} };
  }

  async close(): Promise<void> {
    await this.#objects?.close();
  }

  #for(location: string): CheckpointStorageWorkerView {
    return isNatsObjectLocation(location) ? (this.#objects ??= new ObjectStoreCheckpointStorageWorkerView(this.#config)) : fileCheckpointStorageWorkerView;
  }
}
