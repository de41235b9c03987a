import type { Boundedness, EnumeratorContext, Source, SourceReader, SourceReaderContext, SplitEnumerator } from '../../api/source.ts';
import { connectOrExplain, describeBrokers, kafkaClient } from './kafka-connection.ts';
import type { KafkaSourceOptions } from './kafka-source-options.ts';
import { KafkaSourceReader } from './kafka-source-reader.ts';
import type { KafkaSplit } from './kafka-split.ts';
import { KafkaSplitEnumerator, type KafkaEnumeratorState } from './kafka-split-enumerator.ts';
import { partitionSplits, resolveTopics } from './partition-offsets.ts';

/**
 * Reads Kafka topics (Flink's KafkaSource): one split per partition, spread over the readers.
 * The position of each partition lives in weir's checkpoints and is sought on a restore; the
 * consumer group's committed offsets are only a starting point and a report for monitoring.
 * Event time is the record's timestamp, with watermarks per partition, each from the partition's
 * assignment on (an empty one holds the watermark back until withIdleness marks it idle). With
 * partitionDiscoveryIntervalMs a split enumerator finds partitions and topics appearing later.
 */
export class KafkaSource<T = string> implements Source<T, KafkaSplit, KafkaEnumeratorState | undefined> {
  readonly boundedness: Boundedness;
  readonly #o: KafkaSourceOptions<T>;
  /** Present exactly for discovery (the JobMaster looks for it): the splits come from it instead of createSplits. */
  declare createEnumerator?: (ctx: EnumeratorContext<KafkaSplit>, restored: KafkaEnumeratorState | undefined) => SplitEnumerator<KafkaSplit, KafkaEnumeratorState | undefined>;

  constructor(options: KafkaSourceOptions<T>) {
    if ((options.topics === undefined || options.topics.length === 0) === (options.topicPattern === undefined)) throw new TypeError('KafkaSource: give topics or topicPattern (one of them)');
    this.#o = options;
    this.boundedness = options.bounded ? 'bounded' : 'unbounded';
    const interval = options.partitionDiscoveryIntervalMs;
    if (interval === undefined) return;
    if (!Number.isFinite(interval) || interval <= 0) throw new TypeError(`KafkaSource: partitionDiscoveryIntervalMs must be a positive number of ms, not ${interval}`);
    if (options.bounded) throw new TypeError('KafkaSource: partitionDiscoveryIntervalMs needs an unbounded source (a bounded one ends at the offsets of its start)');
    this.createEnumerator = (ctx, restored) => new KafkaSplitEnumerator(this.#o as KafkaSourceOptions<unknown>, ctx, interval, restored);
  }

  async createSplits(): Promise<KafkaSplit[]> {
    const o = this.#o;
    const admin = kafkaClient(o.connection, 'weir-source-enumerator').admin();
    await connectOrExplain(o.connection, () => admin.connect());
    try {
      const topics = await resolveTopics(admin, describeBrokers(o.connection), o.topics, o.topicPattern);
      return await partitionSplits(admin, topics, o.startingOffsets ?? 'earliest', o.groupId ?? 'weir', o.bounded === true);
    } finally {
      await admin.disconnect();
    }
  }

  createReader(ctx: SourceReaderContext): SourceReader<T, KafkaSplit> {
    return new KafkaSourceReader(this.#o, ctx);
  }
}
