import { randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../clock/clock.ts';
import type { Logger } from '../log/logger.ts';
import type { StopReason } from '../lifecycle/service.ts';
import { FencedWriteError } from './fenced-write-error.ts';
import { KeyValueConflictError } from './key-value-conflict-error.ts';
import type { LeaderContender, LeaderElection, Leadership, RevocationReason } from './leader-election.ts';
import { decodeLeaseRecord, encodeLeaseRecord, type LeaseRecord } from './lease-record.ts';
import { monotonicClock } from './monotonic-clock.ts';
import type { KeyWatch, VersionedEntry, VersionedKeyValueStore } from './versioned-key-value-store.ts';

export interface LeaseLeaderElectionOptions {
  readonly store: VersionedKeyValueStore;
  /** The leader record's key, e.g. `leader.jobmanager`. */
  readonly key: string;
  readonly leaseMs: number;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly contenderId?: string;
}

/**
 * Fractions of the lease: the leader renews every tenth of it, retries a failed renewal every
 * thirtieth, and gives up after four fifths without a successful renewal. A contender may take
 * over only a whole lease after it saw the last renewal's revision, which was written after the
 * leader sent it: the fifth left covers clock-rate drift and a late timer. The deadline is this
 * long because losing one NATS node of three costs its streams a leader election, during which
 * no write succeeds: measured here (nats-server 2.9) 4 s, 7 s when the node also held the
 * client's connection, over 10 s on a loaded host; at a 15 s lease the leader rides out an
 * outage of at least 12 - 1.5 - 0.5 = 10 s (with Kubernetes' 2/3 and a renewal every fifth, 7 s,
 * which lost the leadership). A lease much shorter than 15 s cannot outlast such an election.
 */
const RENEW_FRACTION = 1 / 10;
const RENEW_DEADLINE_FRACTION = 4 / 5;
const RETRY_FRACTION = 1 / 30;

type State =
  | { readonly kind: 'idle' }
  | { readonly kind: 'following' }
  | {
      readonly kind: 'leading';
      readonly leadership: Leadership;
      readonly acquiredAt: number;
      revision: number;
      /** When the last successful write of the record was sent (this clock): the lease runs from there. */
      renewedAt: number;
      nextRenewAt: number;
    }
  | { readonly kind: 'stopped' };

/**
 * Leader election on a lease record renewed by compare-and-set (Flink's DefaultLeaderElectionService
 * over a lease, as in Kubernetes' leader election): a small state machine, idle -> following <->
 * leading -> stopped, driven by one loop, so that at most one store operation of the election is in
 * flight and every transition happens in one place.
 *
 * Following: the contender reads the record; a missing or released one is taken at once, a held one
 * when its revision has not changed for a whole lease by this clock (readers judge expiry, the
 * holder's clock is never trusted). Taking is a compare-and-set at the revision read, with the
 * epoch one higher: of two contenders one wins, and epochs grow.
 *
 * Leading: renew by compare-and-set every fifth of the lease; a lost compare-and-set means another
 * holds it (LEASE_TAKEN), and no successful renewal for two thirds of the lease means giving up
 * (RENEW_DEADLINE_EXCEEDED), by a timer of its own so that a hanging store operation cannot delay it.
 */
export class LeaseLeaderElection implements LeaderElection {
  readonly contenderId: string;
  readonly #o: LeaseLeaderElectionOptions;
  readonly #clock: Clock;
  readonly #renewMs: number;
  readonly #deadlineMs: number;
  readonly #retryMs: number;
  #state: State = { kind: 'idle' };
  #contender: LeaderContender | undefined;
  #watch: KeyWatch | undefined;
  #address: string | null = null;
  #confirmations: Array<{ sessionId: string; resolve: () => void; reject: (e: Error) => void }> = [];
  /** The record's revision as last seen while following, and when it was first seen (this clock). */
  #observed: { revision: number; at: number } | undefined;
  #wakeUp: (() => void) | undefined;
  #deadline: Timer | undefined;
  #loop: Promise<void> | undefined;
  /** Since when the store has failed the loop's operations, and when that was last logged (this clock). */
  #trouble: { readonly since: number; loggedAt: number; attempts: number } | undefined;

  constructor(options: LeaseLeaderElectionOptions) {
    this.#o = options;
    this.#clock = options.clock ?? monotonicClock;
    this.contenderId = options.contenderId ?? randomUUID();
    this.#renewMs = Math.max(1, Math.round(options.leaseMs * RENEW_FRACTION));
    this.#deadlineMs = Math.max(1, Math.round(options.leaseMs * RENEW_DEADLINE_FRACTION));
    this.#retryMs = Math.max(1, Math.round(options.leaseMs * RETRY_FRACTION));
  }

  get leadership(): Leadership | undefined {
    const s = this.#state;
    return s.kind === 'leading' && this.#leaseHolds(s) ? s.leadership : undefined;
  }

  /** For people and REST: the state's name. */
  get stateName(): State['kind'] {
    return this.#state.kind;
  }

  startContending(contender: LeaderContender): void {
    if (this.#state.kind !== 'idle') throw new Error(`leader election for '${this.#o.key}' was started already`);
    this.#contender = contender;
    this.#state = { kind: 'following' };
    // The watch only makes a contender quicker to notice a change; the loop reads the record itself.
    this.#watch = this.#o.store.watch(this.#o.key, () => this.#wake());
    this.#loop = this.#run();
  }

  hasLeadership(sessionId: string): boolean {
    const s = this.#state;
    return s.kind === 'leading' && s.leadership.sessionId === sessionId && this.#leaseHolds(s);
  }

  confirmLeadership(sessionId: string, address: string): Promise<void> {
    const s = this.#state;
    if (s.kind !== 'leading' || s.leadership.sessionId !== sessionId) {
      return Promise.reject(new FencedWriteError('LEADERSHIP_LOST', this.#o.key, s.kind === 'leading' ? s.leadership.epoch : 0, { problem: `session ${sessionId} is not the current leadership` }));
    }
    this.#address = address;
    return new Promise((resolve, reject) => {
      this.#confirmations.push({ sessionId, resolve, reject });
      s.nextRenewAt = this.#clock.now();
      this.#wake();
    });
  }

  async stop(_reason: StopReason): Promise<void> {
    const s = this.#state;
    if (s.kind === 'stopped') return;
    this.#state = { kind: 'stopped' };
    this.#watch?.close();
    this.#deadline?.cancel();
    this.#wake();
    await this.#loop;
    if (s.kind === 'leading') {
      this.#revoke(s.leadership, 'CLOSED', 'the election was closed');
      // Released, not left to expire: a standby takes over at once. Best effort: if it fails, the lease expires.
      const released: LeaseRecord = { ...this.#record(s), holder: null, sessionId: null, address: null };
      await this.#o.store.update(this.#o.key, encodeLeaseRecord(released), s.revision).catch((e: Error) => {
        this.#o.log.warn(`could not release the leadership lease '${this.#o.key}'; it will expire: ${e.message}`);
      });
    }
  }

  async #run(): Promise<void> {
    while (this.#state.kind === 'following' || this.#state.kind === 'leading') {
      try {
        if (this.#state.kind === 'leading') await this.#lead(this.#state);
        else await this.#follow();
        this.#storeAnswers();
      } catch (e) {
        if (this.#stopped) return;
        this.#storeFails(e as Error);
        await this.#sleep(this.#retryMs);
      }
    }
  }

  /**
   * A store that is down fails every retry (a fifteenth of the lease): the first failure is
   * logged, then one line a lease while it lasts, and its end.
   */
  #storeFails(e: Error): void {
    const now = this.#clock.now();
    const t = this.#trouble;
    if (!t) {
      this.#trouble = { since: now, loggedAt: now, attempts: 1 };
      this.#o.log.warn(`leader election '${this.#o.key}': ${e.message}`, { contender: this.contenderId });
      return;
    }
    t.attempts++;
    if (now - t.loggedAt < this.#o.leaseMs) return;
    t.loggedAt = now;
    this.#o.log.warn(`leader election '${this.#o.key}': still failing after ${Math.round(now - t.since)} ms (${t.attempts} attempts): ${e.message}`, { contender: this.contenderId });
  }

  #storeAnswers(): void {
    const t = this.#trouble;
    if (!t) return;
    this.#trouble = undefined;
    this.#o.log.info(`leader election '${this.#o.key}': the store answers again after ${Math.round(this.#clock.now() - t.since)} ms (${t.attempts} failed attempts)`, { contender: this.contenderId });
  }

  async #follow(): Promise<void> {
    const entry = await this.#o.store.get(this.#o.key);
    if (this.#state.kind !== 'following') return;
    const record = entry ? decodeLeaseRecord(entry.value) : undefined;
    if (entry && !record) throw new Error(`the leader record '${this.#o.key}' is not a weir lease record`);
    const now = this.#clock.now();
    if (entry && this.#observed?.revision !== entry.revision) this.#observed = { revision: entry.revision, at: now };
    if (!entry || !record || record.holder === null) {
      await this.#acquire(entry, record);
      return;
    }
    // The longer of the two leases: a holder configured with a longer one is not cut short.
    const expiresAt = this.#observed!.at + Math.max(this.#o.leaseMs, record.leaseMs);
    if (now >= expiresAt) {
      this.#o.log.info(`the lease of leader epoch ${record.epoch} expired (no renewal seen for ${Math.round(now - this.#observed!.at)} ms): contending`, { contender: this.contenderId });
      await this.#acquire(entry, record);
      return;
    }
    await this.#sleep(expiresAt - now);
  }

  async #acquire(entry: VersionedEntry | null, previous: LeaseRecord | undefined): Promise<void> {
    const epoch = (previous?.epoch ?? 0) + 1;
    const sessionId = randomUUID();
    const wallNow = Date.now();
    const record: LeaseRecord = { holder: this.contenderId, sessionId, epoch, address: null, leaseMs: this.#o.leaseMs, acquiredAt: wallNow, renewedAt: wallNow };
    const sentAt = this.#clock.now();
    let revision: number;
    try {
      revision = entry ? await this.#o.store.update(this.#o.key, encodeLeaseRecord(record), entry.revision) : await this.#o.store.create(this.#o.key, encodeLeaseRecord(record));
    } catch (e) {
      if (e instanceof KeyValueConflictError) return; // another contender won: follow it
      throw e;
    }
    if (this.#state.kind !== 'following') {
      // Closed while the write was in flight: hand the lease straight back.
      await this.#o.store.update(this.#o.key, encodeLeaseRecord({ ...record, holder: null, sessionId: null }), revision).catch(() => {});
      return;
    }
    const leadership: Leadership = {
      contenderId: this.contenderId,
      sessionId,
      epoch,
      check: (key) => {
        if (!this.hasLeadership(sessionId)) throw new FencedWriteError('LEADERSHIP_LOST', key, epoch, { problem: this.#whyNotLeading(sessionId) });
      },
    };
    const state: Extract<State, { kind: 'leading' }> = { kind: 'leading', leadership, acquiredAt: wallNow, revision, renewedAt: sentAt, nextRenewAt: sentAt + this.#renewMs };
    this.#state = state;
    this.#armDeadline(state);
    this.#o.log.info(`granted leadership '${this.#o.key}' with epoch ${epoch}`, { contender: this.contenderId, epoch, sessionId });
    try {
      this.#contender?.grantLeadership(leadership);
    } catch (e) {
      this.#o.log.error(`the contender failed on being granted leadership: ${(e as Error).message}`);
    }
  }

  async #lead(s: Extract<State, { kind: 'leading' }>): Promise<void> {
    const now = this.#clock.now();
    if (now < s.nextRenewAt) {
      await this.#sleep(s.nextRenewAt - now);
      return;
    }
    const pending = this.#confirmations.filter((c) => c.sessionId === s.leadership.sessionId);
    const sentAt = this.#clock.now();
    try {
      const revision = await this.#o.store.update(this.#o.key, encodeLeaseRecord({ ...this.#record(s), renewedAt: Date.now() }), s.revision);
      // Kept even when stopped meanwhile: stop() releases the lease by this revision once the loop ends.
      s.revision = revision;
      if (this.#state !== s) return; // revoked or stopped while the write was in flight
      s.renewedAt = sentAt;
      s.nextRenewAt = sentAt + this.#renewMs;
      this.#armDeadline(s);
      for (const c of pending) {
        this.#confirmations.splice(this.#confirmations.indexOf(c), 1);
        c.resolve();
      }
    } catch (e) {
      if (this.#state !== s) return;
      if (e instanceof KeyValueConflictError) {
        // A read that fails (the stream between two leaders) says nothing of who holds the lease: the loop retries.
        const current = await this.#o.store.get(this.#o.key);
        if (this.#state !== s) return;
        const record = current ? decodeLeaseRecord(current.value) : undefined;
        if (current && record?.holder === this.contenderId && record.sessionId === s.leadership.sessionId) {
          s.revision = current.revision; // our own write whose answer was lost: still ours
          return;
        }
        this.#stepDown(s, 'LEASE_TAKEN', record ? `the lease is now held with epoch ${record.epoch}` : 'the leader record is gone');
        return;
      }
      s.nextRenewAt = this.#clock.now() + this.#retryMs;
      this.#o.log.warn(`could not renew the leadership lease (epoch ${s.leadership.epoch}), ${Math.round(s.renewedAt + this.#deadlineMs - this.#clock.now())} ms left: ${(e as Error).message}`, { contender: this.contenderId });
    }
  }

  #armDeadline(s: Extract<State, { kind: 'leading' }>): void {
    this.#deadline?.cancel();
    this.#deadline = this.#clock.schedule(() => {
      if (this.#state !== s) return;
      // Timers may fire a fraction of a millisecond early by this clock: then look again.
      if (this.#leaseHolds(s)) this.#armDeadline(s);
      else this.#stepDown(s, 'RENEW_DEADLINE_EXCEEDED', `no successful renewal for ${this.#deadlineMs} ms (lease ${this.#o.leaseMs} ms)`);
    }, Math.max(1, s.renewedAt + this.#deadlineMs - this.#clock.now()));
  }

  #stepDown(s: Extract<State, { kind: 'leading' }>, reason: RevocationReason, message: string): void {
    this.#deadline?.cancel();
    this.#state = { kind: 'following' };
    // Judge the record from now on like any contender: our own unrenewed lease must expire for everyone first.
    this.#observed = { revision: s.revision, at: this.#clock.now() };
    this.#address = null;
    this.#revoke(s.leadership, reason, message);
    this.#wake();
  }

  #revoke(leadership: Leadership, reason: RevocationReason, message: string): void {
    const text = `leadership '${this.#o.key}' with epoch ${leadership.epoch} ends (${reason}): ${message}`;
    (reason === 'CLOSED' ? this.#o.log.info : this.#o.log.error)(text, { contender: this.contenderId, epoch: leadership.epoch, reason });
    for (const c of this.#confirmations.splice(0)) c.reject(new FencedWriteError('LEADERSHIP_LOST', this.#o.key, leadership.epoch, { problem: message }));
    try {
      this.#contender?.revokeLeadership({ reason, message, leadership });
    } catch (e) {
      this.#o.log.error(`the contender failed on losing leadership: ${(e as Error).message}`);
    }
  }

  #leaseHolds(s: Extract<State, { kind: 'leading' }>): boolean {
    return this.#clock.now() - s.renewedAt < this.#deadlineMs;
  }

  #whyNotLeading(sessionId: string): string {
    const s = this.#state;
    if (s.kind !== 'leading' || s.leadership.sessionId !== sessionId) return `leadership session ${sessionId} has ended`;
    return `its last successful lease renewal was ${Math.round(this.#clock.now() - s.renewedAt)} ms ago (renew deadline ${this.#deadlineMs} ms)`;
  }

  #record(s: Extract<State, { kind: 'leading' }>): LeaseRecord {
    return { holder: this.contenderId, sessionId: s.leadership.sessionId, epoch: s.leadership.epoch, address: this.#address, leaseMs: this.#o.leaseMs, acquiredAt: s.acquiredAt, renewedAt: Date.now() };
  }

  /** Read through a getter: TypeScript narrows `#state` across awaits as if nothing could change it meanwhile. */
  get #stopped(): boolean {
    return this.#state.kind === 'stopped';
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.#clock.schedule(() => {
        this.#wakeUp = undefined;
        resolve();
      }, Math.max(0, ms));
      this.#wakeUp = () => {
        timer.cancel();
        this.#wakeUp = undefined;
        resolve();
      };
    });
  }

  #wake(): void {
    this.#wakeUp?.();
  }
}
