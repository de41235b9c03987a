import type { Stoppable, StopReason } from '../lifecycle/service.ts';
import type { Fence } from './fence.ts';

/** One leadership as granted: a fresh session id and an epoch higher than every one before it. */
export interface Leadership extends Fence {
  readonly contenderId: string;
}

/** Why a leadership ended. */
export type RevocationReason =
  /** Another contender holds the record now (its compare-and-set won). */
  | 'LEASE_TAKEN'
  /** The leader could not renew its lease within the renew deadline (store unreachable, process paused). */
  | 'RENEW_DEADLINE_EXCEEDED'
  /** The election was stopped by its owner (the name is the one logs have always shown). */
  | 'CLOSED';

export interface Revocation {
  readonly reason: RevocationReason;
  readonly message: string;
  readonly leadership: Leadership;
}

/** Flink's LeaderContender: what the component that wants to lead (a JobManager) is told. */
export interface LeaderContender {
  grantLeadership(leadership: Leadership): void;
  revokeLeadership(revocation: Revocation): void;
  /** Something the election cannot go on from (a bucket of another cluster): the contender should stop. */
  handleError?(error: Error): void;
}

/**
 * Flink's LeaderElection: contend, hear about grants and revocations, publish the leader's
 * address once it is ready to serve (confirmLeadership), and check leadership before acting.
 * Started by startContending (it needs its contender), stopped once.
 */
export interface LeaderElection extends Stoppable {
  readonly contenderId: string;
  startContending(contender: LeaderContender): void;
  /** Publishes the leader's address for LeaderRetrieval; resolves once it is written. */
  confirmLeadership(sessionId: string, address: string): Promise<void>;
  /** Whether the session is the current leadership and its lease still holds by this process's clock. */
  hasLeadership(sessionId: string): boolean;
  /** The current leadership, if this contender holds one. */
  readonly leadership: Leadership | undefined;
  /** Stops contending; a leader revokes itself and releases the lease so that another can take over at once. */
  stop(reason: StopReason): Promise<void>;
}
