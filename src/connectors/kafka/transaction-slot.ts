import type { Kafka, Producer, Transaction } from 'kafkajs';
import type { KafkaCommittable } from './kafka-committable.ts';
import { producerIdentity, type ProducerIdentity } from './kafkajs-internals.ts';
import type { KafkaSinkOptions } from './kafka-sink-options.ts';
import type { OutgoingRecord } from './record-builder.ts';
import type { SinkPartitioner } from './sink-partitioner.ts';

/**
 * One transaction of a subtask, `<prefix>-<subtask>-<slot>`: its producer's InitProducerId
 * fences any earlier producer of the id (and aborts what it left open); records are sent into
 * it as they come; at the pre-commit everything is flushed and it becomes a committable.
 */
export class TransactionSlot<T> {
  readonly slot: number;
  readonly transactionalId: string;
  readonly #o: KafkaSinkOptions<T>;
  readonly #partitions: SinkPartitioner<T>;
  readonly #producer: Producer;
  readonly #begun: Promise<Transaction>;
  readonly #inFlight = new Set<Promise<void>>();
  #buffer: OutgoingRecord[] = [];
  #records = 0;
  #failure: unknown;
  /** Per `topic/partition`, the offset of its first record in this transaction (from the brokers' answers). */
  readonly #firstOffsets = new Map<string, number>();
  /** Its producer id and epoch, once its InitProducerId answered. */
  identity: ProducerIdentity | undefined;

  constructor(o: KafkaSinkOptions<T>, kafka: Kafka, partitions: SinkPartitioner<T>, transactionalId: string, slot: number, transactionTimeoutMs: number) {
    this.#o = o;
    this.#partitions = partitions;
    this.slot = slot;
    this.transactionalId = transactionalId;
    const producer = kafka.producer({ transactionalId, transactionTimeout: transactionTimeoutMs, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    this.#producer = producer;
    this.#begun = (async () => {
      await producer.connect();
      const tx = await producer.transaction();
      // Read at once: a later InitProducerId for the same id in this thread (a fence) would replace it.
      this.identity = producerIdentity(transactionalId);
      return tx;
    })();
    this.#begun.catch((e: unknown) => (this.#failure ??= e));
  }

  get failure(): unknown {
    return this.#failure;
  }

  get inFlight(): number {
    return this.#inFlight.size;
  }

  add(record: OutgoingRecord): void {
    this.#buffer.push(record);
    this.#records++;
    if (this.#buffer.length >= (this.#o.batchSize ?? 500)) this.#send();
  }

  /** Sends are chained: a transaction's batches reach each partition in order. */
  #send(): void {
    if (this.#buffer.length === 0) return;
    const records = this.#buffer;
    this.#buffer = [];
    const previous = [...this.#inFlight].at(-1) ?? Promise.resolve();
    const p = (async () => {
      const tx = await this.#begun;
      const batch = await this.#partitions.assign(records);
      await previous;
      for (const m of await tx.sendBatch({ topicMessages: batch })) this.#noteOffset(m.topicName, m.partition, m.baseOffset ?? m.offset);
    })().catch((e: unknown) => {
      this.#failure ??= e;
    });
    const tracked = p.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  #noteOffset(topic: string, partition: number, offset: string | undefined): void {
    const key = `${topic}/${partition}`;
    if (offset !== undefined && !this.#firstOffsets.has(key)) this.#firstOffsets.set(key, Number(offset));
  }

  /** Where its records begin in each partition it wrote: which records are its, where producer ids are not unique. */
  get firstOffsets(): Readonly<Record<string, number>> {
    return Object.fromEntries(this.#firstOffsets);
  }

  oldestSend(): Promise<void> | undefined {
    return [...this.#inFlight][0];
  }

  /** Flushes and describes the transaction; its producer stays open for the commit. */
  async precommit(subtask: number, checkpointId: number): Promise<{ committable: KafkaCommittable; producer: Producer; transaction: Transaction }> {
    this.#send();
    const tx = await this.#begun;
    await Promise.all(this.#inFlight);
    if (this.#failure !== undefined) throw this.#failure;
    const id = this.identity;
    if (id === undefined) throw new Error(`no producer id known for Kafka transactional id ${this.transactionalId}`);
    const committable: KafkaCommittable = { subtask, slot: this.slot, checkpointId, transactionalId: this.transactionalId, producerId: id.producerId, producerEpoch: id.producerEpoch, records: this.#records };
    return { committable, producer: this.#producer, transaction: tx };
  }

  /** Aborts what it wrote (a failure or the end before a pre-commit) and closes the producer. */
  async abort(): Promise<void> {
    try {
      const tx = await this.#begun;
      await Promise.allSettled(this.#inFlight);
      if (tx.isActive()) await tx.abort();
    } catch {
      // The id's next InitProducerId (the restored writer's or its fence) aborts it anyway.
    }
    await this.#producer.disconnect().catch(() => {});
  }
}
