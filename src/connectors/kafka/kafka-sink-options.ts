import type { CommitRetryPolicy } from '../../api/two-phase-committing-sink.ts';
import type { KafkaConnectionOptions } from './kafka-connection.ts';

/**
 * Flink's delivery guarantees. 'exactly-once': a transaction per checkpoint and subtask,
 * committed once the checkpoint completes (read_committed readers see a checkpoint's records
 * then, all at once). 'at-least-once': sent at once and flushed at each checkpoint. 'none': sent
 * at once, never waited for.
 */
export type KafkaDeliveryGuarantee = 'exactly-once' | 'at-least-once' | 'none';

export interface KafkaSinkOptions<T> {
  readonly connection: KafkaConnectionOptions;
  /** One topic for all, or one per record. */
  readonly topic: string | ((value: T) => string);
  /** A record's value (KafkaSerializers has the common ones). Unset: JSON.stringify (strings as they are). */
  readonly serializer?: (value: T) => string | Uint8Array | null;
  /** A record's key: partitions by its hash (murmur2, as Kafka's Java client). Unset: no key, partitions in turn. */
  readonly key?: (value: T) => string | Uint8Array | null;
  /**
   * How a record's partition is chosen (Flink's FlinkKafkaPartitioner): 'key-hash' (unset) the
   * murmur2 hash of the key as Kafka's Java client, records without a key in turn; 'fixed' subtask
   * i writes partition i mod n (Flink's FlinkFixedPartitioner: with at least as many partitions
   * as subtasks, each partition has one writer); or a function of the record.
   */
  readonly partitioner?: 'key-hash' | 'fixed' | KafkaPartitioner<T>;
  readonly headers?: (value: T) => Readonly<Record<string, string>>;
  /** Unset: 'exactly-once'. */
  readonly guarantee?: KafkaDeliveryGuarantee;
  /** The stable part of the transactional ids (the same on every resume). Unset: made from the job's name and the sink's uid. */
  readonly transactionIdPrefix?: string;
  /**
   * Kafka's transaction.timeout.ms for the sink's transactions (at most the brokers'
   * transaction.max.timeout.ms). It must exceed the checkpoint interval plus the checkpoint
   * timeout, or the brokers could abort a transaction before its checkpoint completes. Unset: 15 min.
   */
  readonly transactionTimeoutMs?: number;
  /** Records sent per request. Unset: 500. */
  readonly batchSize?: number;
  /** The name of a BroadcastChannel (node:worker_threads) the sink posts its KafkaTransactionEvents to, from every thread: for audits. */
  readonly transactionEvents?: string;
  readonly commitRetry?: CommitRetryPolicy;
}

export const DEFAULT_TRANSACTION_TIMEOUT_MS = 15 * 60_000;

/** What a partitioner function knows besides the record. */
export interface PartitionTarget {
  readonly topic: string;
  /** The topic's partition count. */
  readonly partitions: number;
  /** The record's serialized key, if it has one. */
  readonly key: Buffer | string | null;
  readonly subtask: number;
  readonly parallelism: number;
}

/** A record's partition, in [0, target.partitions). */
export type KafkaPartitioner<T> = (value: T, target: PartitionTarget) => number;
