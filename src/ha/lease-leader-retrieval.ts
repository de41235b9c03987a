import type { Clock, Timer } from '../clock/clock.ts';
import type { StopReason } from '../lifecycle/service.ts';
import type { Logger } from '../log/logger.ts';
import type { LeaderInformation, LeaderRetrieval } from './leader-retrieval.ts';
import { decodeLeaseRecord } from './lease-record.ts';
import { monotonicClock } from './monotonic-clock.ts';
import type { KeyWatch, VersionedEntry, VersionedKeyValueStore } from './versioned-key-value-store.ts';

export interface LeaseLeaderRetrievalOptions {
  readonly store: VersionedKeyValueStore;
  readonly key: string;
  readonly leaseMs: number;
  readonly log: Logger;
  readonly clock?: Clock;
}

/**
 * Follows the leader record: reports the leader once it has published its address, and `null`
 * when the record is released, or when it has not changed for a whole lease by this clock (its
 * holder is gone; a new leader's address follows when one is elected).
 */
export class LeaseLeaderRetrieval implements LeaderRetrieval {
  readonly #o: LeaseLeaderRetrievalOptions;
  readonly #clock: Clock;
  #watch: KeyWatch | undefined;
  #expiry: Timer | undefined;
  #listener: ((leader: LeaderInformation | null) => void) | undefined;
  #reported: LeaderInformation | null | undefined;

  constructor(options: LeaseLeaderRetrievalOptions) {
    this.#o = options;
    this.#clock = options.clock ?? monotonicClock;
  }

  start(listener: (leader: LeaderInformation | null) => void): void {
    if (this.#listener) throw new Error(`leader retrieval for '${this.#o.key}' was started already`);
    this.#listener = listener;
    this.#watch = this.#o.store.watch(this.#o.key, (entry) => this.#seen(entry));
  }

  async stop(_reason: StopReason): Promise<void> {
    this.#watch?.close();
    this.#expiry?.cancel();
    this.#listener = undefined;
  }

  #seen(entry: VersionedEntry | null): void {
    this.#expiry?.cancel();
    const record = entry ? decodeLeaseRecord(entry.value) : undefined;
    if (!record || record.holder === null || record.address === null || record.sessionId === null) {
      this.#report(null);
      return;
    }
    this.#report({ sessionId: record.sessionId, epoch: record.epoch, address: record.address });
    const lease = Math.max(this.#o.leaseMs, record.leaseMs);
    this.#expiry = this.#clock.schedule(() => {
      this.#o.log.warn(`the leader (epoch ${record.epoch} at ${record.address}) has not renewed its lease for ${lease} ms`);
      this.#report(null);
    }, lease);
  }

  #report(leader: LeaderInformation | null): void {
    const last = this.#reported;
    if (last !== undefined && (last === leader || (last && leader && last.sessionId === leader.sessionId && last.address === leader.address))) return;
    this.#reported = leader;
    this.#listener?.(leader);
  }
}
