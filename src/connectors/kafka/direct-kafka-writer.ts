import type { Kafka, Producer } from 'kafkajs';
import type { PrecommittingSinkWriter } from '../../api/two-phase-committing-sink.ts';
import type { KafkaCommittable } from './kafka-committable.ts';
import type { KafkaSinkOptions } from './kafka-sink-options.ts';
import { buildRecord, type OutgoingRecord } from './record-builder.ts';
import { SinkPartitioner } from './sink-partitioner.ts';

/** Sends in flight before the writer stops taking input. */
const MAX_IN_FLIGHT = 8;

/**
 * 'at-least-once' and 'none': records are sent in batches as they come. At-least-once waits at
 * each checkpoint's pre-commit until everything sent before it is acknowledged, so a completed
 * checkpoint holds nothing unsent; 'none' never waits.
 */
export class DirectKafkaWriter<T> implements PrecommittingSinkWriter<T, KafkaCommittable> {
  readonly #o: KafkaSinkOptions<T>;
  readonly #producer: Producer;
  readonly #partitions: SinkPartitioner<T>;
  #buffer: OutgoingRecord[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  #failure: unknown;

  constructor(o: KafkaSinkOptions<T>, kafka: Kafka, producer: Producer, subtask: number, parallelism: number) {
    this.#o = o;
    this.#producer = producer;
    this.#partitions = new SinkPartitioner(o, kafka, subtask, parallelism);
  }

  write(value: T): void {
    if (this.#failure !== undefined) throw this.#failure;
    this.#buffer.push(buildRecord(this.#o, value));
    if (this.#buffer.length >= (this.#o.batchSize ?? 500)) this.#sendBuffer();
  }

  #sendBuffer(): void {
    if (this.#buffer.length === 0) return;
    const records = this.#buffer;
    this.#buffer = [];
    const p = (async () => {
      await this.#producer.sendBatch({ topicMessages: await this.#partitions.assign(records) });
    })().catch((e: unknown) => {
      this.#failure ??= e;
    });
    const tracked = p.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  ready(): Promise<void> | undefined {
    if (this.#inFlight.size < MAX_IN_FLIGHT) return undefined;
    return Promise.race(this.#inFlight);
  }

  async flush(): Promise<void> {
    this.#sendBuffer();
    await Promise.all(this.#inFlight);
    if (this.#failure !== undefined) throw this.#failure;
  }

  async prepareCommit(): Promise<KafkaCommittable[]> {
    if ((this.#o.guarantee ?? 'exactly-once') === 'none') this.#sendBuffer();
    else await this.flush();
    return [];
  }

  async close(): Promise<void> {
    await this.flush();
    await this.#partitions.close();
    await this.#producer.disconnect();
  }

  async abort(): Promise<void> {
    await this.#partitions.close();
    await this.#producer.disconnect().catch(() => {});
  }
}
