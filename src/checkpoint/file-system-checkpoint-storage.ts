import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { makeDirectories } from '../fs/make-directories.ts';
import type { CheckpointMetadata } from './checkpoint-metadata.ts';
import { readMetadata, writeMetadata } from './checkpoint-metadata.ts';
import type { CheckpointStorage } from './checkpoint-storage.ts';
import { verifyCheckpointFiles } from './verify-checkpoint-files.ts';
import { isSharedFileLocation, SHARED_DIRECTORY } from './incremental/shared-state-files.ts';
import { checkpointIdOfName, type JobLocationContents } from './incremental/job-location-contents.ts';

/**
 * Checkpoints as directories (DESIGN §7): `<dir>/<job-id>/chk-<n>/` with `_metadata` and the
 * state files, savepoints as `<target>/sp-<job-id-6>-<random>/`. Without a configured directory
 * the job gets a temporary one of its own, removed when it ends.
 */
export class FileSystemCheckpointStorage implements CheckpointStorage {
  readonly #jobId: string;
  readonly #configured: string | null;
  #jobLocation = '';
  #ownsLocation = false;

  constructor(jobId: string, checkpointDir: string | null) {
    this.#jobId = jobId;
    this.#configured = checkpointDir;
  }

  get jobLocation(): string {
    return this.#jobLocation;
  }

  get temporary(): boolean {
    return this.#ownsLocation;
  }

  async initialize(checkpointing: boolean): Promise<void> {
    if (this.#configured) {
      this.#jobLocation = join(resolve(this.#configured), this.#jobId);
      // A directory that can never hold a checkpoint fails the job now, naming it, not at every trigger.
      if (checkpointing) await makeDirectories(this.#jobLocation).catch((e: Error) => {
        throw new Error(`execution.checkpointing.dir: ${e.message}`, { cause: e });
      });
      return;
    }
    this.#jobLocation = join(await mkdtemp(join(tmpdir(), 'weir-checkpoints-')), this.#jobId);
    this.#ownsLocation = true;
  }

  checkpointLocation(checkpointId: number): string {
    return join(this.#jobLocation, `chk-${checkpointId}`);
  }

  async savepointLocation(base: string): Promise<string> {
    const target = join(resolve(base), `sp-${this.#jobId.slice(0, 6)}-${randomBytes(6).toString('hex')}`);
    await makeDirectories(target);
    return target;
  }

  async writeMetadata(location: string, metadata: CheckpointMetadata): Promise<void> {
    await writeMetadata(location, metadata);
  }

  async readForRestore(pointer: string): Promise<{ metadata: CheckpointMetadata; location: string }> {
    const { metadata, directory } = await readMetadata(resolve(pointer));
    await verifyCheckpointFiles(metadata, directory);
    return { metadata, location: directory };
  }

  async discard(location: string): Promise<void> {
    await rm(location, { recursive: true, force: true });
  }

  async discardShared(files: readonly string[]): Promise<void> {
    for (const f of files) if (isSharedFileLocation(f)) await rm(f, { force: true });
  }

  async scanJobLocation(): Promise<JobLocationContents> {
    const completed: Array<JobLocationContents['completed'][number]> = [];
    const incomplete: string[] = [];
    if (!this.#jobLocation) return { completed, incomplete, sharedFiles: [], complete: true };
    for (const name of await readdir(this.#jobLocation).catch(() => [] as string[])) {
      if (checkpointIdOfName(name) === undefined) continue;
      const location = join(this.#jobLocation, name);
      // A _metadata that does not read back (torn, or never written): the checkpoint never completed.
      const read = await readMetadata(location).catch(() => undefined);
      if (read) completed.push({ location, metadata: read.metadata });
      else incomplete.push(location);
    }
    const shared = await readdir(join(this.#jobLocation, SHARED_DIRECTORY)).catch(() => [] as string[]);
    return { completed, incomplete, sharedFiles: shared.map((name) => join(this.#jobLocation, SHARED_DIRECTORY, name)), complete: true };
  }

  async discardJob(): Promise<void> {
    if (this.#ownsLocation && this.#jobLocation) await rm(join(this.#jobLocation, '..'), { recursive: true, force: true }).catch(() => {});
  }
}
