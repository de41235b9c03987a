import type { HighAvailabilityServices } from '../ha/high-availability-services.ts';
import type { LeaderContender, LeaderElection, Leadership, Revocation } from '../ha/leader-election.ts';
import type { LeaderInformation, LeaderRetrieval } from '../ha/leader-retrieval.ts';
import type { Service, StopReason } from '../lifecycle/service.ts';
import type { Logger } from '../log/logger.ts';
import type { Dispatcher } from './dispatcher.ts';

/**
 * standby: contending, serving nothing of its own; recovering: granted, taking over the jobs in
 * the HA stores (submissions are refused until it is done); leading: the leader address is
 * published and submissions are taken; closed: no longer contending (stopped; the name is the one
 * REST's ha-role has always shown).
 */
export type LeadershipState = { readonly kind: 'standby' } | { readonly kind: 'recovering'; readonly leadership: Leadership } | { readonly kind: 'leading'; readonly leadership: Leadership } | { readonly kind: 'closed' };

export interface JobManagerLeadershipOptions {
  readonly services: HighAvailabilityServices;
  readonly dispatcher: () => Dispatcher;
  /** This JobManager's REST URL, published once it leads. */
  readonly address: () => string;
  readonly retainedCheckpoints: number;
  /** The pause between two recovery attempts that failed while the leadership held. */
  readonly recoveryRetryMs: number;
  readonly log: Logger;
}

/**
 * A JobManager as a contender for the cluster's leadership (Flink's DispatcherLeaderProcess):
 * on a grant it finishes the cleanup of jobs that ended, recovers every other submitted job from
 * its latest completed checkpoint pointer, and only then confirms the leadership; on a revocation
 * it suspends its jobs, keeping their checkpoints. Grants and revocations are handled one after
 * another, in the order the election gives them.
 */
export class JobManagerLeadership implements LeaderContender, Service {
  readonly #o: JobManagerLeadershipOptions;
  readonly #election: LeaderElection;
  readonly #retrieval: LeaderRetrieval;
  #state: LeadershipState = { kind: 'standby' };
  #leader: LeaderInformation | null = null;
  #steps: Promise<void> = Promise.resolve();

  constructor(o: JobManagerLeadershipOptions) {
    this.#o = o;
    this.#election = o.services.leaderElection('jobmanager');
    this.#retrieval = o.services.leaderRetrieval('jobmanager');
  }

  get state(): LeadershipState {
    return this.#state;
  }

  /** The leadership under which jobs may be submitted now (leading only, and its lease holds). */
  get leadership(): Leadership | undefined {
    return this.#state.kind === 'leading' && this.#election.hasLeadership(this.#state.leadership.sessionId) ? this.#state.leadership : undefined;
  }

  /** The current leader as published in the HA store (this JobManager or another). */
  get leader(): LeaderInformation | null {
    return this.#leader;
  }

  async start(): Promise<void> {
    this.#retrieval.start((l) => (this.#leader = l));
    this.#election.startContending(this);
  }

  grantLeadership(leadership: Leadership): void {
    this.#step(async () => {
      if (this.#state.kind === 'closed') return;
      this.#state = { kind: 'recovering', leadership };
      this.#o.log.info(`granted leadership (epoch ${leadership.epoch}); recovering jobs from ${this.#o.services.description}`, { epoch: leadership.epoch });
      if (!(await this.#recoverWhileLeading(leadership))) return;
      if (this.#state.kind === 'recovering' && this.#state.leadership === leadership) {
        this.#state = { kind: 'leading', leadership };
        this.#o.log.info(`leading (epoch ${leadership.epoch}) at ${this.#o.address()}`, { epoch: leadership.epoch });
      }
    });
  }

  revokeLeadership(revocation: Revocation): void {
    this.#step(async () => {
      if (this.#state.kind === 'standby' || this.#state.kind === 'closed') return;
      this.#state = { kind: 'standby' };
      this.#o.log.warn(`leadership (epoch ${revocation.leadership.epoch}) revoked, ${revocation.reason}: ${revocation.message}`, { epoch: revocation.leadership.epoch });
      await this.#o.dispatcher().suspendAll(`leadership (epoch ${revocation.leadership.epoch}) lost: ${revocation.reason}`);
    });
  }

  handleError(error: Error): void {
    this.#o.log.error(`leader election cannot go on: ${error.message}`);
  }

  async stop(reason: StopReason): Promise<void> {
    this.#state = { kind: 'closed' };
    await this.#retrieval.stop(reason);
    await this.#steps;
    await this.#election.stop(reason);
  }

  /**
   * Recovery and the confirmation, again after a pause while they fail and the leadership holds:
   * a store that has just regained its quorum answers slowly at first, and a leader that stopped
   * trying would lead nothing until it lost the lease. A recovery under a lost leadership fails
   * fenced; the revocation that follows suspends what it started.
   */
  async #recoverWhileLeading(leadership: Leadership): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#recover(leadership);
        await this.#election.confirmLeadership(leadership.sessionId, this.#o.address());
        return true;
      } catch (e) {
        const still = this.#state.kind === 'recovering' && this.#state.leadership === leadership && this.#election.hasLeadership(leadership.sessionId);
        (attempt === 1 ? this.#o.log.error : this.#o.log.warn)(`recovery as leader (epoch ${leadership.epoch}, attempt ${attempt}) failed${still ? `; trying again in ${this.#o.recoveryRetryMs} ms` : ''}: ${(e as Error).message}`, { epoch: leadership.epoch });
        if (!still) return false;
        await new Promise((r) => setTimeout(r, this.#o.recoveryRetryMs));
      }
    }
  }

  async #recover(leadership: Leadership): Promise<void> {
    const { services, log } = this.#o;
    // FLIP-194: jobs that ended under an earlier leader finish their cleanup and are not run again.
    for (const dirty of await services.jobResultStore.getDirtyResults()) {
      await services.globalCleanup(leadership, dirty.jobId);
      await services.jobResultStore.markResultAsClean(leadership, dirty.jobId);
      log.info(`job ${dirty.jobId} ended ${dirty.status} under an earlier leader: cleaned up`, { jobId: dirty.jobId });
    }
    for (const jobId of await services.jobGraphStore.getJobIds()) {
      if (this.#o.dispatcher().isRunning(jobId)) continue; // recovered by an attempt before this one
      if (await services.jobResultStore.hasJobResultEntry(jobId)) continue;
      const job = await services.jobGraphStore.recoverJob(leadership, jobId);
      if (!job) continue;
      const pointers = await services.completedCheckpointStore(jobId, this.#o.retainedCheckpoints).recover(leadership);
      await services.checkpointIdCounter(jobId).recover(leadership);
      const latest = pointers.at(-1);
      const from = latest?.location ?? job.restoreFrom;
      log.info(`recovering job ${jobId} (${job.name}) ${latest ? `from checkpoint ${latest.checkpointId}: ${latest.location}` : from ? `from ${from}` : 'from the start'}`, { jobId, epoch: leadership.epoch });
      await this.#o.dispatcher().recover(leadership, job, from);
    }
  }

  #step(f: () => Promise<void>): void {
    this.#steps = this.#steps.then(f).catch((e: Error) => this.#o.log.error(`leadership step failed: ${e.message}`));
  }
}
