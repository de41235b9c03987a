import { BroadcastChannel } from 'node:worker_threads';
import type { Committer } from '../../api/two-phase-committing-sink.ts';
import type { Logger } from '../../log/logger.ts';
import type { KafkaCommittable, KafkaTransactionEvent } from './kafka-committable.ts';
import type { TransactionCoordinators } from './kafkajs-internals.ts';
import { dropLive, liveTransactions, type LiveTransaction } from './live-transactions.ts';

/** Ids probed past the last one used before giving up (a bound on a broken scan, far above any real run). */
const MAX_FENCE_SCAN = 100_000;

export interface KafkaCommitterOptions {
  readonly coordinators: TransactionCoordinators;
  readonly prefix: string;
  readonly subtask: number;
  readonly parallelism: number;
  readonly transactionTimeoutMs: number;
  readonly target: string;
  readonly events: string | undefined;
  readonly log: Logger;
}

/**
 * Commits a completed checkpoint's transactions: through the producer that wrote one when it
 * still runs in this thread, else as that producer (its id and epoch) after a restore. On a
 * restore it fences every transaction after the restored ones (InitProducerId aborts an open
 * transaction and bumps the epoch), so nothing a killed run left open blocks readers until the
 * brokers' timeout; it tells the writer which slot to go on from.
 */
export class KafkaCommitter implements Committer<KafkaCommittable> {
  readonly target: string;
  readonly #o: KafkaCommitterOptions;
  /** Let go at close: a commit still in flight then (its broker slow to answer) posts nothing. */
  #events: BroadcastChannel | undefined;
  /** The slot the subtask's writer starts at. */
  firstSlot = 1;

  constructor(o: KafkaCommitterOptions) {
    this.#o = o;
    this.target = o.target;
    this.#events = o.events === undefined ? undefined : new BroadcastChannel(o.events);
  }

  async commit(committables: readonly KafkaCommittable[]): Promise<void> {
    for (const c of committables) {
      const live = liveTransactions.get(c.transactionalId);
      // A live transaction whose commit failed part way (a broker down: kafkajs then holds it as
      // ended, and refuses it for good) is committed as its producer, as after a restore: EndTxn
      // again with its id and epoch completes it, or finds it completed.
      if (live?.transaction.isActive()) await live.transaction.commit();
      else if (c.records > 0) await this.#o.coordinators.endTransaction(c.transactionalId, c, true);
      await dropLive(c.transactionalId);
      this.#post({ type: 'committed', committable: c, resumed: live === undefined });
    }
  }

  async recover(retained: readonly KafkaCommittable[]): Promise<void> {
    const last = new Map<number, number>();
    for (const c of retained) last.set(c.subtask, Math.max(last.get(c.subtask) ?? 0, c.slot));
    const retainedIds = new Set(retained.map((c) => c.transactionalId));
    for (const [id, live] of [...liveTransactions]) if (id.startsWith(`${this.#o.prefix}-`) && !retainedIds.has(id)) await this.#abortLive(id, live);
    this.firstSlot = Math.max(0, ...last.values()) + 1;
    const oldParallelism = Math.max(0, ...last.keys()) + 1;
    for (let subtask = this.#o.subtask; subtask < Math.max(oldParallelism, this.#o.parallelism); subtask += this.#o.parallelism) await this.#fenceFrom(subtask, (last.get(subtask) ?? 0) + 1);
  }

  /** A pre-committed transaction of a failed attempt, not in the restored checkpoint, whose producer still runs here. */
  async #abortLive(transactionalId: string, live: LiveTransaction): Promise<void> {
    try {
      if (live.transaction.isActive()) await live.transaction.abort();
      this.#post({ type: 'aborted', transactionalId, producerId: live.committable.producerId, producerEpoch: live.committable.producerEpoch });
    } catch (e) {
      // The fence below (InitProducerId on the id) aborts it on the brokers' side.
      this.#o.log.warn(`aborting Kafka transaction ${transactionalId} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    await dropLive(transactionalId);
  }

  async abortLeftovers(): Promise<void> {
    await this.#fenceFrom(this.#o.subtask, 1);
  }

  /** InitProducerId on each id from `slot` on until one that was never used (epoch 0). */
  async #fenceFrom(subtask: number, slot: number): Promise<void> {
    for (let s = slot; s < slot + MAX_FENCE_SCAN; s++) {
      const transactionalId = `${this.#o.prefix}-${subtask}-${s}`;
      const { producerId, producerEpoch } = await this.#o.coordinators.initProducerId(transactionalId, this.#o.transactionTimeoutMs);
      if (producerEpoch === 0) return;
      this.#post({ type: 'fenced', transactionalId, producerId, producerEpoch });
      this.#o.log.info(`fenced Kafka transactional id ${transactionalId} (epoch ${producerEpoch}): whatever it left open is aborted`);
    }
  }

  #post(e: KafkaTransactionEvent): void {
    this.#events?.postMessage(e);
  }

  async close(): Promise<void> {
    const events = this.#events;
    this.#events = undefined;
    events?.close();
    await this.#o.coordinators.close();
  }
}
