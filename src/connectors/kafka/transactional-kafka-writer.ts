import type { Kafka } from 'kafkajs';
import { BroadcastChannel } from 'node:worker_threads';
import type { PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
import type { KafkaCommittable, KafkaTransactionEvent } from './kafka-committable.ts';
import type { KafkaSinkOptions } from './kafka-sink-options.ts';
import { liveTransactions } from './live-transactions.ts';
import { buildRecord } from './record-builder.ts';
import { SinkPartitioner } from './sink-partitioner.ts';
import { TransactionSlot } from './transaction-slot.ts';

const MAX_IN_FLIGHT = 8;

/**
 * Exactly-once: one Kafka transaction per checkpoint. Records go into the current slot's
 * transaction; the cut (pre-commit) closes it into a committable and opens the next slot, whose
 * producer starts while the previous transaction is flushed.
 */
export class TransactionalKafkaWriter<T> implements PrecommittingSinkWriter<T, KafkaCommittable> {
  readonly #o: KafkaSinkOptions<T>;
  readonly #kafka: Kafka;
  readonly #subtask: number;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #partitions: SinkPartitioner<T>;
  readonly #events: BroadcastChannel | undefined;
  #current: TransactionSlot<T>;

  constructor(o: KafkaSinkOptions<T>, kafka: Kafka, subtask: number, parallelism: number, prefix: string, firstSlot: number, transactionTimeoutMs: number) {
    this.#o = o;
    this.#kafka = kafka;
    this.#subtask = subtask;
    this.#prefix = prefix;
    this.#timeoutMs = transactionTimeoutMs;
    this.#partitions = new SinkPartitioner(o, kafka, subtask, parallelism);
    this.#events = o.transactionEvents === undefined ? undefined : new BroadcastChannel(o.transactionEvents);
    this.#current = this.#open(firstSlot);
  }

  #open(slot: number): TransactionSlot<T> {
    return new TransactionSlot(this.#o, this.#kafka, this.#partitions, `${this.#prefix}-${this.#subtask}-${slot}`, slot, this.#timeoutMs);
  }

  write(value: T): void {
    if (this.#current.failure !== undefined) throw this.#current.failure;
    this.#current.add(buildRecord(this.#o, value));
  }

  ready(): Promise<void> | undefined {
    return this.#current.inFlight < MAX_IN_FLIGHT ? undefined : this.#current.oldestSend();
  }

  async prepareCommit(checkpointId: number): Promise<KafkaCommittable[]> {
    const slot = this.#current;
    this.#current = this.#open(slot.slot + 1);
    let precommitted: Awaited<ReturnType<TransactionSlot<T>['precommit']>>;
    try {
      precommitted = await slot.precommit(this.#subtask, checkpointId);
    } catch (e) {
      // No checkpoint will hold it: aborted now rather than left open until the brokers' timeout.
      await this.#abortSlot(slot);
      throw e;
    }
    const { committable, producer, transaction } = precommitted;
    liveTransactions.set(committable.transactionalId, { producer, transaction, committable });
    this.#events?.postMessage({ type: 'pre-committed', committable, firstOffsets: slot.firstOffsets } satisfies KafkaTransactionEvent);
    return [committable];
  }

  async #abortSlot(slot: TransactionSlot<T>): Promise<void> {
    await slot.abort();
    this.#events?.postMessage({ type: 'aborted', transactionalId: slot.transactionalId, ...slot.identity, firstOffsets: slot.firstOffsets } satisfies KafkaTransactionEvent);
  }

  async close(): Promise<void> {
    await this.abort();
  }

  /** The open transaction holds records of no checkpoint: aborted. Pre-committed ones stay for the committer. */
  async abort(): Promise<void> {
    await this.#abortSlot(this.#current);
    this.#events?.close();
    await this.#partitions.close();
  }
}
