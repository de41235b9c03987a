import type { Admin } from 'kafkajs';
import type { KafkaStartingOffsets } from './kafka-source-options.ts';
import { splitId, type KafkaSplit } from './kafka-split.ts';
import { TopicNotFoundError } from './topic-not-found-error.ts';

/** The topics the source reads: the named ones (each must exist) or those matching the pattern. */
export async function resolveTopics(admin: Admin, brokers: string, topics: readonly string[] | undefined, pattern: RegExp | undefined): Promise<string[]> {
  const existing = await admin.listTopics();
  if (pattern) return existing.filter((t) => pattern.test(t)).sort();
  for (const t of topics ?? []) if (!existing.includes(t)) throw new TopicNotFoundError(t, brokers);
  return [...(topics ?? [])];
}

/** One split per partition of the topics, from the starting offsets, with the end offsets as bounds if bounded. */
export async function partitionSplits(admin: Admin, topics: readonly string[], start: KafkaStartingOffsets, groupId: string, bounded: boolean): Promise<KafkaSplit[]> {
  const splits: KafkaSplit[] = [];
  const committed = start === 'committed' ? await admin.fetchOffsets({ groupId, topics: [...topics] }) : [];
  for (const topic of topics) {
    // In partition order: the brokers answer in any, and readers get splits round-robin.
    const ends = (await admin.fetchTopicOffsets(topic)).sort((a, b) => a.partition - b.partition);
    const byTime = typeof start === 'object' && 'timestamp' in start ? await admin.fetchTopicOffsetsByTimestamp(topic, start.timestamp) : [];
    for (const end of ends) {
      const partition = end.partition;
      const low = Number(end.low);
      const high = Number(end.high);
      let next: number;
      if (start === 'earliest') next = low;
      else if (start === 'latest') next = high;
      else if (start === 'committed') {
        const c = Number(committed.find((t) => t.topic === topic)?.partitions.find((p) => p.partition === partition)?.offset ?? -1);
        next = c >= 0 ? c : low;
      } else if ('timestamp' in start) {
        const o = Number(byTime.find((p) => p.partition === partition)?.offset ?? -1);
        next = o >= 0 ? o : high;
      } else next = start.specific[splitId({ topic, partition })] ?? low;
      splits.push(bounded ? { topic, partition, nextOffset: next, endOffset: high } : { topic, partition, nextOffset: next });
    }
  }
  return splits;
}
