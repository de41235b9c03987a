import type { BlobKey } from './blob-store.ts';
import type { Fence } from './fence.ts';
import { deleteRecord, readRecord, updateRecord } from './fenced-record.ts';
import type { VersionedKeyValueStore } from './versioned-key-value-store.ts';

/**
 * A job as submitted, with what a new leader needs to run it when the JobManager that took it is
 * gone: its bundle (the compiled job module in the blob store), arguments and settings.
 */
export interface SubmittedJob {
  readonly jobId: string;
  readonly name: string;
  /** The job module compiled into one ES module, in the blob store. */
  readonly bundle: BlobKey;
  readonly args: readonly string[];
  /** The submitter's configuration layer (its -D flags and config file), as given. */
  readonly config: Readonly<Record<string, unknown>>;
  readonly submittedAt: number;
  /** A savepoint or checkpoint the first attempt restores from. */
  readonly restoreFrom?: string;
}

/** Flink's JobGraphStore (ExecutionPlanStore since 2.0): the submitted jobs that are not globally terminal. */
export interface JobGraphStore {
  putJob(fence: Fence, job: SubmittedJob): Promise<void>;
  /** A new leader's step for each job it takes over: claims the record for its epoch and returns it. */
  recoverJob(fence: Fence, jobId: string): Promise<SubmittedJob | undefined>;
  getJob(jobId: string): Promise<SubmittedJob | undefined>;
  getJobIds(): Promise<string[]>;
  /** The job is globally terminal and cleaned up (Flink's globalCleanup). */
  removeJob(fence: Fence, jobId: string): Promise<void>;
}

export class KeyValueJobGraphStore implements JobGraphStore {
  readonly #store: VersionedKeyValueStore;

  constructor(store: VersionedKeyValueStore) {
    this.#store = store;
  }

  async putJob(fence: Fence, job: SubmittedJob): Promise<void> {
    await updateRecord<SubmittedJob>(this.#store, keyOf(job.jobId), fence, () => job);
  }

  async recoverJob(fence: Fence, jobId: string): Promise<SubmittedJob | undefined> {
    if (!(await readRecord(this.#store, keyOf(jobId)))) return undefined;
    return updateRecord<SubmittedJob>(this.#store, keyOf(jobId), fence, () => undefined);
  }

  async getJob(jobId: string): Promise<SubmittedJob | undefined> {
    return (await readRecord<SubmittedJob>(this.#store, keyOf(jobId)))?.data;
  }

  async getJobIds(): Promise<string[]> {
    return (await this.#store.keys('jobs.*.graph')).map((k) => k.split('.')[1]!);
  }

  async removeJob(fence: Fence, jobId: string): Promise<void> {
    await deleteRecord(this.#store, keyOf(jobId), fence);
  }
}

const keyOf = (jobId: string) => `jobs.${jobId}.graph`;
