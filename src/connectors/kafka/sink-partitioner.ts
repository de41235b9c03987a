import type { Kafka, Message } from 'kafkajs';
import type { KafkaPartitioner, KafkaSinkOptions } from './kafka-sink-options.ts';
import { PartitionCounts } from './partition-counts.ts';
import { PartitionOutOfRangeError } from './partition-out-of-range-error.ts';
import type { OutgoingRecord } from './record-builder.ts';

/**
 * Chooses the partitions of a subtask's records as the sink's `partitioner` says: left to the
 * client ('key-hash': murmur2 of the key, in turn without one), the subtask's own ('fixed'), or
 * the user's function. Partition counts are asked once per topic, only when a choice needs them.
 */
export class SinkPartitioner<T> {
  readonly #choose: KafkaPartitioner<T> | undefined;
  readonly #counts: PartitionCounts;
  readonly #subtask: number;
  readonly #parallelism: number;

  constructor(o: KafkaSinkOptions<T>, kafka: Kafka, subtask: number, parallelism: number) {
    const p = o.partitioner ?? 'key-hash';
    // Flink's FlinkFixedPartitioner: subtask i writes partition i mod n, so each partition has one writer where n >= parallelism.
    this.#choose = p === 'key-hash' ? undefined : p === 'fixed' ? (_v, t) => t.subtask % t.partitions : p;
    this.#counts = new PartitionCounts(kafka);
    this.#subtask = subtask;
    this.#parallelism = parallelism;
  }

  /** Records grouped by topic, each with its partition where the sink chooses it. */
  async assign(records: readonly OutgoingRecord[]): Promise<{ topic: string; messages: Message[] }[]> {
    const byTopic = new Map<string, Message[]>();
    for (const r of records) {
      const m = this.#choose === undefined ? r.message : { ...r.message, partition: await this.#partition(r) };
      const list = byTopic.get(r.topic);
      if (list) list.push(m);
      else byTopic.set(r.topic, [m]);
    }
    return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
  }

  async #partition(r: OutgoingRecord): Promise<number> {
    const partitions = await this.#counts.get(r.topic);
    const p = this.#choose!(r.value as T, { topic: r.topic, partitions, key: r.message.key ?? null, subtask: this.#subtask, parallelism: this.#parallelism });
    if (!Number.isInteger(p) || p < 0 || p >= partitions) throw new PartitionOutOfRangeError(r.topic, partitions, p);
    return p;
  }

  close(): Promise<void> {
    return this.#counts.close();
  }
}
