import type { Admin, Kafka } from 'kafkajs';

/** Partition counts of topics, asked once per topic (the sink's partition function needs them). */
export class PartitionCounts {
  readonly #kafka: Kafka;
  readonly #counts = new Map<string, Promise<number>>();
  #admin: Promise<Admin> | undefined;

  constructor(kafka: Kafka) {
    this.#kafka = kafka;
  }

  get = (topic: string): Promise<number> => {
    let c = this.#counts.get(topic);
    if (c === undefined) {
      c = this.#ask(topic);
      this.#counts.set(topic, c);
      c.catch(() => this.#counts.delete(topic));
    }
    return c;
  };

  async #ask(topic: string): Promise<number> {
    this.#admin ??= (async () => {
      const a = this.#kafka.admin();
      await a.connect();
      return a;
    })();
    const meta = await (await this.#admin).fetchTopicMetadata({ topics: [topic] });
    return meta.topics[0]!.partitions.length;
  }

  async close(): Promise<void> {
    if (this.#admin) await (await this.#admin).disconnect().catch(() => {});
  }
}
