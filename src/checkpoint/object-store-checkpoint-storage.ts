import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import type { WeirConfig } from '../config/configuration.ts';
import { METADATA_FILE, readMetadata, writeMetadata, type CheckpointMetadata } from './checkpoint-metadata.ts';
import type { CheckpointStorage } from './checkpoint-storage.ts';
import { CheckpointCorruptedError } from './checkpoint-storage-error.ts';
import { MissingSharedStateFileError } from './incremental/missing-shared-state-file-error.ts';
import { childLocation, natsObjectLocation, parseNatsObjectLocation } from './checkpoint-location.ts';
import { NatsObjectFiles } from './nats/nats-object-files.ts';
import { keyedStateFiles, verifyCheckpointFiles } from './verify-checkpoint-files.ts';
import { isSharedFileLocation, resolveStateFile, SHARED_DIRECTORY } from './incremental/shared-state-files.ts';
import { checkpointIdOfName, type JobLocationContents } from './incremental/job-location-contents.ts';

/**
 * Checkpoints in a JetStream object store (`execution.checkpointing.dir: nats-obj://<bucket>/<prefix>`),
 * laid out as the directories are (DESIGN §7): objects `<prefix>/<job-id>/chk-<n>/_metadata` and
 * the state files beside it, savepoints `<target>/sp-<job-id-6>-<random>/`. `_metadata` is made by
 * the same code as on a file system, in a local staging directory, and uploaded whole, so the bytes
 * are the same; only once the upload is acknowledged (replicated) is the checkpoint complete.
 */
export class ObjectStoreCheckpointStorage implements CheckpointStorage {
  readonly temporary = false;
  readonly #jobId: string;
  readonly #configured: string | null;
  readonly #files: NatsObjectFiles;
  #jobLocation = '';

  /** `checkpointDir` null: a storage for locations elsewhere (restores and savepoints on the object store). */
  constructor(jobId: string, checkpointDir: string | null, config: WeirConfig) {
    this.#jobId = jobId;
    this.#configured = checkpointDir;
    this.#files = new NatsObjectFiles(config);
  }

  get jobLocation(): string {
    return this.#jobLocation;
  }

  async initialize(checkpointing: boolean): Promise<void> {
    if (!this.#configured) throw new Error('an object store checkpoint storage without execution.checkpointing.dir cannot hold checkpoints');
    this.#jobLocation = childLocation(natsObjectLocation(parseNatsObjectLocation(this.#configured)), this.#jobId);
    // A bucket that can never hold a checkpoint (unreachable, of another cluster) fails the job now, naming it.
    if (checkpointing) {
      await this.#files.bucket(parseNatsObjectLocation(this.#jobLocation).bucket, 'write').catch((e: Error) => {
        throw new Error(`execution.checkpointing.dir ${this.#configured}: ${e.message}`, { cause: e });
      });
    }
  }

  checkpointLocation(checkpointId: number): string {
    return childLocation(this.#jobLocation, `chk-${checkpointId}`);
  }

  async savepointLocation(base: string): Promise<string> {
    const target = childLocation(base, `sp-${this.#jobId.slice(0, 6)}-${randomBytes(6).toString('hex')}`);
    await this.#files.bucket(parseNatsObjectLocation(target).bucket, 'write');
    return target;
  }

  async writeMetadata(location: string, metadata: CheckpointMetadata): Promise<void> {
    const { bucket, path } = parseNatsObjectLocation(location);
    await withStaging(async (dir) => {
      const file = await writeMetadata(dir, metadata);
      await this.#files.upload(bucket, objectName(path, METADATA_FILE), file);
    });
  }

  /**
   * Downloads `_metadata` and the state files it names to a staging directory and checks them there
   * with the file system's code; the location handed on stays the object store's. Each object is
   * read by name from the stream's leader, not found through a listing: a server that has just
   * restarted answers a stream's info from its own stale state while it thinks the stream has no
   * leader, so a listing can miss what was written while it was down.
   */
  async readForRestore(pointer: string): Promise<{ metadata: CheckpointMetadata; location: string }> {
    const location = pointer.endsWith(`/${METADATA_FILE}`) ? pointer.slice(0, -METADATA_FILE.length - 1) : pointer;
    const { bucket, path } = parseNatsObjectLocation(location);
    return withStaging(async (dir) => {
      if (!(await this.#files.download(bucket, objectName(path, METADATA_FILE), join(dir, METADATA_FILE)))) {
        throw new CheckpointCorruptedError(childLocation(location, METADATA_FILE), 'no _metadata here: not a complete checkpoint or savepoint');
      }
      try {
        const { metadata } = await readMetadata(dir);
        // Shared files are named `../shared/<name>`: staged beside the checkpoint's own as they are stored.
        const staged = join(dir, 'chk');
        for (const file of keyedStateFiles(metadata).keys()) if (!isAbsolute(file)) await this.#files.download(bucket, resolveStateFile(path, file), join(staged, file));
        await verifyCheckpointFiles(metadata, staged);
        return { metadata, location };
      } catch (e) {
        if (!(e instanceof CheckpointCorruptedError)) throw e;
        // Name the object, not the staging copy.
        const file = childLocation(location, relative(join(dir, 'chk'), e.file));
        if (e instanceof MissingSharedStateFileError) throw new MissingSharedStateFileError(file, e.checkpointId, e.sharedFile);
        throw new CheckpointCorruptedError(file, e.message.slice(e.file.length + 2));
      }
    });
  }

  async discard(location: string): Promise<void> {
    const { bucket, path } = parseNatsObjectLocation(location);
    await this.#files.deleteBelow(bucket, path);
  }

  async discardShared(files: readonly string[]): Promise<void> {
    for (const f of files) {
      if (!isSharedFileLocation(f)) continue;
      const { bucket, path } = parseNatsObjectLocation(f);
      await this.#files.delete(bucket, path);
    }
  }

  /**
   * From the bucket's listing (see NatsObjectFiles.list): a stream whose replicas are catching up
   * may list less than it holds: a checkpoint it lists is read by name, a shared file it misses
   * stays behind, and a checkpoint it misses whole may still name files no listed one names
   * (so the listing is not `complete`).
   */
  async scanJobLocation(): Promise<JobLocationContents> {
    if (!this.#jobLocation) return { completed: [], incomplete: [], sharedFiles: [], complete: false };
    const { bucket, path } = parseNatsObjectLocation(this.#jobLocation);
    const names = (await this.#files.list(bucket, path)).map((n) => relativeName(path, n));
    const checkpoints = new Set<string>();
    const sharedFiles: string[] = [];
    for (const name of names) {
      const [first, ...rest] = name.split('/');
      if (first === SHARED_DIRECTORY && rest.length > 0) sharedFiles.push(childLocation(this.#jobLocation, name));
      else if (first !== undefined && checkpointIdOfName(first) !== undefined) checkpoints.add(first);
    }
    const completed: Array<JobLocationContents['completed'][number]> = [];
    const incomplete: string[] = [];
    for (const name of checkpoints) {
      const location = childLocation(this.#jobLocation, name);
      // Read by name from the stream's leader even when the listing showed no _metadata: it may have missed it.
      const metadata = await this.#readMetadata(bucket, objectName(path, name));
      if (metadata) completed.push({ location, metadata });
      else incomplete.push(location);
    }
    return { completed, incomplete, sharedFiles, complete: false };
  }

  async #readMetadata(bucket: string, path: string): Promise<CheckpointMetadata | undefined> {
    return withStaging(async (dir) => {
      if (!(await this.#files.download(bucket, objectName(path, METADATA_FILE), join(dir, METADATA_FILE)))) return undefined;
      return (await readMetadata(dir).catch(() => undefined))?.metadata;
    });
  }

  async discardJob(): Promise<void> {
    // Never a temporary location of the job's own: what it retained stays.
  }

  async close(): Promise<void> {
    await this.#files.close();
  }
}

export function objectName(path: string, file: string): string {
  return path === '' ? file : `${path}/${file}`;
}

export function relativeName(path: string, name: string): string {
  return path === '' ? name : name.slice(path.length + 1);
}

/** A local directory for one operation, removed after it whatever happens. */
export async function withStaging<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'weir-nats-staging-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
