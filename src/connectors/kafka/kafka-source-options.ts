import type { KafkaConnectionOptions } from './kafka-connection.ts';
import type { OutputTag } from '../../api/output-tag.ts';
import type { KafkaDeserializer } from './kafka-record.ts';
import type { KafkaUnreadableRecord } from './kafka-unreadable-record.ts';

/**
 * Where a fresh start begins reading each partition (a restore goes on from the checkpoint's
 * offsets): `committed` is the consumer group's committed offset (earliest where there is none).
 */
export type KafkaStartingOffsets =
  | 'earliest'
  | 'latest'
  | 'committed'
  | { readonly timestamp: number }
  | { readonly specific: Readonly<Record<string, number>> };

export interface KafkaSourceOptions<T> {
  readonly connection: KafkaConnectionOptions;
  /** Topics by name. */
  readonly topics?: readonly string[];
  /** Or every topic whose name matches. */
  readonly topicPattern?: RegExp;
  /** The consumer group: its committed offsets are a starting point (`committed`) and are updated after each completed checkpoint, for monitoring only. Unset: 'weir'. */
  readonly groupId?: string;
  /** A throw fails the job with KafkaDeserializationError naming topic, partition and offset (or see deserializationErrorOutput). Unset: the value as UTF-8 text. */
  readonly deserializer?: KafkaDeserializer<T>;
  /**
   * Records the deserializer throws on go to this side output, `fromSource(...).getSideOutput(tag)`,
   * instead of failing the job: each with its topic, partition, offset, timestamp, key, headers,
   * value and the reason.
   */
  readonly deserializationErrorOutput?: OutputTag<KafkaUnreadableRecord>;
  /** Unset: 'earliest'. With `specific`, keys are `topic-partition`; partitions not named start at earliest. */
  readonly startingOffsets?: KafkaStartingOffsets;
  /** Stop at the partitions' end offsets as they were at the job's start. Unset: unbounded. */
  readonly bounded?: boolean;
  /** Unset: 'read_committed' (records of aborted transactions are skipped where the broker marks them). */
  readonly isolationLevel?: 'read_committed' | 'read_uncommitted';
  /** Update the group's committed offsets after each completed checkpoint. Unset: true. */
  readonly commitOffsetsOnCheckpoint?: boolean;
  /**
   * Flink's partition.discovery.interval.ms: look for new partitions (and, with topicPattern, new
   * topics) this often and read them from earliest, without a restart; the partitions handed out
   * are kept in the checkpoints. Unbounded sources only. Unset: the partitions of the start only.
   */
  readonly partitionDiscoveryIntervalMs?: number;
  /** Records buffered per reader before it pauses fetching. Unset: 4096. */
  readonly bufferSize?: number;
}
