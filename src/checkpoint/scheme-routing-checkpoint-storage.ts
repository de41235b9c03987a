import type { WeirConfig } from '../config/configuration.ts';
import type { CheckpointMetadata } from './checkpoint-metadata.ts';
import type { CheckpointStorage } from './checkpoint-storage.ts';
import type { JobLocationContents } from './incremental/job-location-contents.ts';
import { isNatsObjectLocation } from './checkpoint-location.ts';
import { FileSystemCheckpointStorage } from './file-system-checkpoint-storage.ts';
import { ObjectStoreCheckpointStorage } from './object-store-checkpoint-storage.ts';

/**
 * The job's checkpoint storage is the one its execution.checkpointing.dir names; every other
 * location goes to the storage of its own scheme: a savepoint taken to a directory while
 * checkpoints go to the object store, a restore (-s) from either, whichever the job checkpoints to.
 * That is what makes savepoints relocatable between the two.
 */
export class SchemeRoutingCheckpointStorage implements CheckpointStorage {
  readonly #primary: CheckpointStorage;
  readonly #jobId: string;
  readonly #config: WeirConfig;
  #files: CheckpointStorage | undefined;
  #objects: CheckpointStorage | undefined;

  constructor(jobId: string, config: WeirConfig) {
    this.#jobId = jobId;
    this.#config = config;
    const dir = config['execution.checkpointing.dir'];
    this.#primary = dir !== null && isNatsObjectLocation(dir) ? (this.#objects = new ObjectStoreCheckpointStorage(jobId, dir, config)) : (this.#files = new FileSystemCheckpointStorage(jobId, dir));
  }

  get jobLocation(): string {
    return this.#primary.jobLocation;
  }

  get temporary(): boolean {
    return this.#primary.temporary;
  }

  initialize(checkpointing: boolean): Promise<void> {
    return this.#primary.initialize(checkpointing);
  }

  checkpointLocation(checkpointId: number): string {
    return this.#primary.checkpointLocation(checkpointId);
  }

  savepointLocation(base: string): Promise<string> {
    return this.#for(base).savepointLocation(base);
  }

  writeMetadata(location: string, metadata: CheckpointMetadata): Promise<void> {
    return this.#for(location).writeMetadata(location, metadata);
  }

  readForRestore(pointer: string): Promise<{ metadata: CheckpointMetadata; location: string }> {
    return this.#for(pointer).readForRestore(pointer);
  }

  discard(location: string): Promise<void> {
    return this.#for(location).discard(location);
  }

  async discardShared(files: readonly string[]): Promise<void> {
    const objects = files.filter(isNatsObjectLocation);
    const paths = files.filter((f) => !isNatsObjectLocation(f));
    if (objects.length > 0) await this.#for(objects[0]!).discardShared(objects);
    if (paths.length > 0) await this.#for(paths[0]!).discardShared(paths);
  }

  scanJobLocation(): Promise<JobLocationContents> {
    return this.#primary.scanJobLocation();
  }

  discardJob(): Promise<void> {
    return this.#primary.discardJob();
  }

  async close(): Promise<void> {
    await Promise.all([this.#files?.close?.(), this.#objects?.close?.()]);
  }

  #for(location: string): CheckpointStorage {
    if (isNatsObjectLocation(location)) return (this.#objects ??= new ObjectStoreCheckpointStorage(this.#jobId, null, this.#config));
    return (this.#files ??= new FileSystemCheckpointStorage(this.#jobId, null));
  }
}
