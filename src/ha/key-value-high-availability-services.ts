import type { StopReason } from '../lifecycle/service.ts';
import type { Logger } from '../log/logger.ts';
import type { BlobStore } from './blob-store.ts';
import { KeyValueCheckpointIdCounter, type CheckpointIdCounter } from './checkpoint-id-counter.ts';
import { KeyValueCompletedCheckpointPointerStore, type CompletedCheckpointPointerStore } from './completed-checkpoint-pointer-store.ts';
import type { Fence } from './fence.ts';
import { deleteRecord } from './fenced-record.ts';
import type { HighAvailabilityServices, LeaderComponent } from './high-availability-services.ts';
import { KeyValueJobGraphStore, type JobGraphStore } from './job-graph-store.ts';
import { KeyValueJobResultStore, type JobResultStore } from './job-result-store.ts';
import type { LeaderElection } from './leader-election.ts';
import type { LeaderRetrieval } from './leader-retrieval.ts';
import { LeaseLeaderElection } from './lease-leader-election.ts';
import { LeaseLeaderRetrieval } from './lease-leader-retrieval.ts';
import type { VersionedKeyValueStore } from './versioned-key-value-store.ts';

export interface KeyValueHighAvailabilityServicesOptions {
  readonly clusterId: string;
  readonly store: VersionedKeyValueStore;
  readonly blobs: BlobStore;
  readonly leaseMs: number;
  readonly log: Logger;
  /** Lets go of what the services were built on (a NATS connection). */
  readonly onStop?: () => Promise<void>;
}

/**
 * The HA services over any versioned key-value store and blob store: the in-memory ones and
 * NATS JetStream's differ only in the store underneath, so election, fencing and the records are
 * the same code (and tests) for both.
 */
export class KeyValueHighAvailabilityServices implements HighAvailabilityServices {
  readonly clusterId: string;
  readonly jobGraphStore: JobGraphStore;
  readonly jobResultStore: JobResultStore;
  readonly blobStore: BlobStore;
  readonly #o: KeyValueHighAvailabilityServicesOptions;
  readonly #elections = new Set<LeaderElection>();
  readonly #retrievals = new Set<LeaderRetrieval>();

  constructor(options: KeyValueHighAvailabilityServicesOptions) {
    this.#o = options;
    this.clusterId = options.clusterId;
    this.jobGraphStore = new KeyValueJobGraphStore(options.store);
    this.jobResultStore = new KeyValueJobResultStore(options.store);
    this.blobStore = options.blobs;
  }

  get description(): string {
    return this.#o.store.description;
  }

  leaderElection(component: LeaderComponent): LeaderElection {
    const election = new LeaseLeaderElection({ store: this.#o.store, key: `leader.${component}`, leaseMs: this.#o.leaseMs, log: this.#o.log.child({ component }) });
    this.#elections.add(election);
    return election;
  }

  leaderRetrieval(component: LeaderComponent): LeaderRetrieval {
    const retrieval = new LeaseLeaderRetrieval({ store: this.#o.store, key: `leader.${component}`, leaseMs: this.#o.leaseMs, log: this.#o.log.child({ component }) });
    this.#retrievals.add(retrieval);
    return retrieval;
  }

  checkpointIdCounter(jobId: string): CheckpointIdCounter {
    return new KeyValueCheckpointIdCounter(this.#o.store, jobId);
  }

  completedCheckpointStore(jobId: string, retained: number): CompletedCheckpointPointerStore {
    return new KeyValueCompletedCheckpointPointerStore(this.#o.store, jobId, retained);
  }

  async globalCleanup(fence: Fence, jobId: string): Promise<void> {
    const job = await this.jobGraphStore.getJob(jobId);
    await deleteRecord(this.#o.store, `jobs.${jobId}.checkpoint-id`, fence);
    await deleteRecord(this.#o.store, `jobs.${jobId}.checkpoints`, fence);
    await this.jobGraphStore.removeJob(fence, jobId);
    // Bundles are content-addressed and may be shared: only one no other submitted job points to goes.
    if (job) {
      const others = await Promise.all((await this.jobGraphStore.getJobIds()).map((id) => this.jobGraphStore.getJob(id)));
      if (!others.some((o) => o?.bundle === job.bundle)) await this.blobStore.delete(job.bundle);
    }
  }

  async stop(reason: StopReason): Promise<void> {
    await Promise.all([...this.#retrievals].map((r) => r.stop(reason)));
    await Promise.all([...this.#elections].map((e) => e.stop(reason)));
    await this.#o.onStop?.();
  }
}
