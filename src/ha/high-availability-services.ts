import type { BlobStore } from './blob-store.ts';
import type { CheckpointIdCounter } from './checkpoint-id-counter.ts';
import type { CompletedCheckpointPointerStore } from './completed-checkpoint-pointer-store.ts';
import type { Stoppable, StopReason } from '../lifecycle/service.ts';
import type { Fence } from './fence.ts';
import type { JobGraphStore } from './job-graph-store.ts';
import type { JobResultStore } from './job-result-store.ts';
import type { LeaderElection } from './leader-election.ts';
import type { LeaderRetrieval } from './leader-retrieval.ts';

/** The component that contends: weir has one leader per cluster, the JobManager (Flink's dispatcher). */
export type LeaderComponent = 'jobmanager';

/**
 * Flink's HighAvailabilityServices: what must survive a JobManager, in one place. Leadership and
 * pointers live in an agreed store (NATS JetStream KV, or this process's memory when
 * high-availability.type is none); checkpoints themselves live in the checkpoint storage. Started by
 * their factory (it connects); stopped once, which stops every election and retrieval they made.
 */
export interface HighAvailabilityServices extends Stoppable {
  readonly clusterId: string;
  /** Where the records live, for messages and the REST API. */
  readonly description: string;
  /** A new contender for the component's leadership (one per JobManager). */
  leaderElection(component: LeaderComponent): LeaderElection;
  leaderRetrieval(component: LeaderComponent): LeaderRetrieval;
  /** Flink's CheckpointRecoveryFactory, per job. */
  checkpointIdCounter(jobId: string): CheckpointIdCounter;
  completedCheckpointStore(jobId: string, retained: number): CompletedCheckpointPointerStore;
  readonly jobGraphStore: JobGraphStore;
  readonly jobResultStore: JobResultStore;
  readonly blobStore: BlobStore;
  /**
   * A globally terminal job's HA data goes (Flink's globalCleanupAsync): its checkpoint id counter,
   * its checkpoint pointers and its submission with the bundle. Between createDirtyResult and
   * markResultAsClean; the checkpoints themselves are the caller's to discard first.
   */
  globalCleanup(fence: Fence, jobId: string): Promise<void>;
  stop(reason: StopReason): Promise<void>;
}
