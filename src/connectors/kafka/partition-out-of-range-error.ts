/** The sink's partitioner chose a partition the topic does not have. */
export class PartitionOutOfRangeError extends Error {
  readonly topic: string;
  readonly partitions: number;
  readonly chosen: unknown;

  constructor(topic: string, partitions: number, chosen: unknown) {
    super(`KafkaSink: the partitioner chose partition ${String(chosen)} of topic '${topic}', which has partitions 0..${partitions - 1}`);
    this.name = 'PartitionOutOfRangeError';
    this.topic = topic;
    this.partitions = partitions;
    this.chosen = chosen;
  }
}
