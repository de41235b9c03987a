import type { Fence } from './fence.ts';
import { readRecord, updateRecord } from './fenced-record.ts';
import type { VersionedKeyValueStore } from './versioned-key-value-store.ts';

/**
 * Flink's JobResultEntry (FLIP-194): a job that reached a globally terminal state. DIRTY: its HA
 * data and checkpoints may not be cleaned up yet; CLEAN: they are. Either way a new leader does
 * not run the job again (a bounded job that finished just before a failover stays finished).
 */
export interface JobResultEntry {
  readonly jobId: string;
  readonly status: 'FINISHED' | 'FAILED' | 'CANCELED';
  readonly finishedAt: number;
  readonly error?: string;
  readonly state: 'DIRTY' | 'CLEAN';
}

/**
 * Flink's JobResultStore. The order a leader keeps when a job ends: createDirtyResult, then the
 * cleanup (checkpoints, pointers, job graph, bundle), then markResultAsClean; a new leader finds
 * dirty results with getDirtyResults and finishes their cleanup instead of running the job.
 */
export interface JobResultStore {
  /** Fails (FencedWriteError aside) when the job already has an entry: a job ends once. */
  createDirtyResult(fence: Fence, entry: Omit<JobResultEntry, 'state'>): Promise<void>;
  markResultAsClean(fence: Fence, jobId: string): Promise<void>;
  get(jobId: string): Promise<JobResultEntry | undefined>;
  hasJobResultEntry(jobId: string): Promise<boolean>;
  hasDirtyJobResultEntry(jobId: string): Promise<boolean>;
  hasCleanJobResultEntry(jobId: string): Promise<boolean>;
  getDirtyResults(): Promise<JobResultEntry[]>;
}

export class JobResultExistsError extends Error {
  readonly jobId: string;
  readonly existing: JobResultEntry;
  constructor(existing: JobResultEntry) {
    super(`job ${existing.jobId} has a result already (${existing.status}, ${existing.state.toLowerCase()})`);
    this.name = 'JobResultExistsError';
    this.jobId = existing.jobId;
    this.existing = existing;
  }
}

export class KeyValueJobResultStore implements JobResultStore {
  readonly #store: VersionedKeyValueStore;

  constructor(store: VersionedKeyValueStore) {
    this.#store = store;
  }

  async createDirtyResult(fence: Fence, entry: Omit<JobResultEntry, 'state'>): Promise<void> {
    await updateRecord<JobResultEntry>(this.#store, keyOf(entry.jobId), fence, (current) => {
      if (current) throw new JobResultExistsError(current);
      return { ...entry, state: 'DIRTY' };
    });
  }

  async markResultAsClean(fence: Fence, jobId: string): Promise<void> {
    await updateRecord<JobResultEntry>(this.#store, keyOf(jobId), fence, (current) => {
      if (!current) throw new Error(`job ${jobId} has no result to mark clean`);
      return { ...current, state: 'CLEAN' };
    });
  }

  async get(jobId: string): Promise<JobResultEntry | undefined> {
    return (await readRecord<JobResultEntry>(this.#store, keyOf(jobId)))?.data;
  }

  async hasJobResultEntry(jobId: string): Promise<boolean> {
    return (await this.get(jobId)) !== undefined;
  }

  async hasDirtyJobResultEntry(jobId: string): Promise<boolean> {
    return (await this.get(jobId))?.state === 'DIRTY';
  }

  async hasCleanJobResultEntry(jobId: string): Promise<boolean> {
    return (await this.get(jobId))?.state === 'CLEAN';
  }

  async getDirtyResults(): Promise<JobResultEntry[]> {
    const out: JobResultEntry[] = [];
    for (const key of await this.#store.keys('results.*')) {
      const entry = (await readRecord<JobResultEntry>(this.#store, key))?.data;
      if (entry?.state === 'DIRTY') out.push(entry);
    }
    return out;
  }
}

const keyOf = (jobId: string) => `results.${jobId}`;
