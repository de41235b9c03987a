import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, posix } from 'node:path';
import type { WeirConfig } from '../config/configuration.ts';
import type { CheckpointStorageWorkerView, StagedRestore } from './checkpoint-storage.ts';
import { natsObjectLocation, parseNatsObjectLocation } from './checkpoint-location.ts';
import { fileCheckpointStorageWorkerView } from './file-checkpoint-storage-worker-view.ts';
import { NatsObjectFiles } from './nats/nats-object-files.ts';
import { objectName, withStaging } from './object-store-checkpoint-storage.ts';
import type { ChannelStateHandle, TaskRestoreState } from './state-handles.ts';
import { keyedHandleFiles, resolveStateFile, SHARED_DIRECTORY } from './incremental/shared-state-files.ts';

/**
 * Staging directories mirror the storage's layout: a checkpoint's own files in `chk/`, the job's
 * shared files in `shared/` beside it, so that a handle's `../shared/<name>` finds them.
 */
const STAGED_CHECKPOINT = 'chk';

/**
 * Where a checkpoint's own files are staged below `root`: deep enough that every file a handle
 * names relative to it (`../shared/x`, or `../../<other job>/shared/x` for a chain built on a
 * claimed checkpoint) lands inside `root`.
 */
function stagedCheckpointDir(root: string, files: readonly string[]): string {
  const climbs = files.map((f) => (isAbsolute(f) ? 0 : f.split('/').findIndex((part) => part !== '..')));
  const depth = Math.max(1, ...climbs);
  return join(root, ...Array.from({ length: depth - 1 }, (_, i) => `up${i}`), STAGED_CHECKPOINT);
}

/**
 * A subtask's state on the JetStream object store. The files are the file system's, written by
 * the same code into a local staging directory and then uploaded (a state file is written once
 * and never changed, which is what an object store is for); a restore downloads the files a
 * subtask needs first and reads them with the same code. Handles name files relative to the
 * checkpoint, so they are the same whichever storage holds them.
 */
export class ObjectStoreCheckpointStorageWorkerView implements CheckpointStorageWorkerView {
  readonly #files: NatsObjectFiles;

  constructor(config: WeirConfig) {
    this.#files = new NatsObjectFiles(config);
  }

  async writeSnapshot(...[target, captured, task, signal]: Parameters<CheckpointStorageWorkerView['writeSnapshot']>): ReturnType<CheckpointStorageWorkerView['writeSnapshot']> {
    return withStaging(async (dir) => {
      const own = join(dir, STAGED_CHECKPOINT);
      const shared = join(dir, SHARED_DIRECTORY);
      const snapshot = await fileCheckpointStorageWorkerView.writeSnapshot({ ...target, location: own, sharedLocation: shared }, captured, task, signal);
      await this.#uploadAll(own, target.location, signal);
      const { bucket, path } = parseNatsObjectLocation(target.location);
      await this.#uploadAll(shared, natsObjectLocation({ bucket, path: posix.join(posix.dirname(path), SHARED_DIRECTORY) }), signal);
      return snapshot;
    });
  }

  async writeChannelState(...[target, task, channels]: Parameters<CheckpointStorageWorkerView['writeChannelState']>): ReturnType<CheckpointStorageWorkerView['writeChannelState']> {
    return withStaging(async (dir) => {
      const handles = await fileCheckpointStorageWorkerView.writeChannelState({ ...target, location: dir }, task, channels);
      await this.#uploadAll(dir, target.location);
      return handles;
    });
  }

  readChannelState(_handle: ChannelStateHandle, location: string): unknown[] {
    // Reads are synchronous where channel state is replayed: stageRestore must have brought the files here first.
    throw new Error(`channel state at ${location} is on the object store: the task must stage its restore first`);
  }

  async restoreKeyed(...[backend, state, location]: Parameters<CheckpointStorageWorkerView['restoreKeyed']>): Promise<void> {
    await withStaging(async (dir) => {
      const files = state.keyed.flatMap((h) => keyedHandleFiles(h).map((f) => f.file));
      const own = stagedCheckpointDir(dir, files);
      await this.#download(location, files, own);
      await fileCheckpointStorageWorkerView.restoreKeyed(backend, state, own);
    });
  }

  async stageRestore(restore: TaskRestoreState): Promise<StagedRestore> {
    const root = await mkdtemp(join(tmpdir(), 'weir-nats-restore-'));
    const files = [
      ...Object.values(restore.operators).flatMap((o) => o.keyed.flatMap((h) => keyedHandleFiles(h).map((f) => f.file))),
      ...(restore.channels ? [...restore.channels.inputs, ...restore.channels.outputs].map((c) => c.handle.file) : []),
    ];
    const dir = stagedCheckpointDir(root, files);
    try {
      await this.#download(restore.directory, files, dir);
    } catch (e) {
      await rm(root, { recursive: true, force: true });
      throw e;
    }
    return { location: dir, discard: () => rm(root, { recursive: true, force: true }) };
  }

  async close(): Promise<void> {
    await this.#files.close();
  }

  async #uploadAll(dir: string, location: string, signal?: AbortSignal): Promise<void> {
    const { bucket, path } = parseNatsObjectLocation(location);
    const uploaded: string[] = [];
    const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? [] : Promise.reject(e)));
    for (const name of names) {
      if (signal?.aborted) break;
      await this.#files.upload(bucket, objectName(path, name), join(dir, name));
      uploaded.push(objectName(path, name));
    }
    if (signal?.aborted) {
      // The JobMaster discarded the checkpoint when it aborted it: what landed since is ours to take back.
      for (const name of uploaded) await this.#files.delete(bucket, name).catch(() => {});
      signal.throwIfAborted();
    }
  }

  async #download(location: string, files: readonly string[], dir: string): Promise<void> {
    const { bucket, path } = parseNatsObjectLocation(location);
    for (const file of new Set(files)) {
      if (isAbsolute(file)) continue; // a file system path kept by an old snapshot: read where it is
      if (!(await this.#files.download(bucket, resolveStateFile(path, file), join(dir, file)))) {
        throw new Error(`state file ${location}/${file} is missing from the object store`);
      }
    }
  }
}
