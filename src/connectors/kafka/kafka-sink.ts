import type { SinkContext } from '../../api/sink.ts';
import type { CommitRetryPolicy, Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { sinkTransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { DirectKafkaWriter } from './direct-kafka-writer.ts';
import type { KafkaCommittable } from './kafka-committable.ts';
import { KafkaCommitter } from './kafka-committer.ts';
import { connectOrExplain, describeBrokers, kafkaClient } from './kafka-connection.ts';
import { DEFAULT_TRANSACTION_TIMEOUT_MS, type KafkaSinkOptions } from './kafka-sink-options.ts';
import { TransactionCoordinators, watchProducerIds } from './kafkajs-internals.ts';
import { TransactionalKafkaWriter } from './transactional-kafka-writer.ts';
import { TransactionTimeoutTooShortError } from './transaction-timeout-too-short-error.ts';

/**
 * Into Kafka topics (Flink's KafkaSink), exactly once by default: each subtask writes a
 * checkpoint's records in a transaction of its own, with transactional ids
 * `<prefix>-<subtask>-<slot>` (the prefix is stable across resumes), committed once the
 * checkpoint completes. A restore commits the restored checkpoint's transactions and fences the
 * later ones.
 */
export class KafkaSink<T> implements TwoPhaseCommittingSink<T, KafkaCommittable> {
  /** EndTxn of a committed transaction succeeds again; a replay after a restore writes new transactions. */
  readonly idempotentCommits = false;
  readonly commitRetry: CommitRetryPolicy | undefined;
  readonly #o: KafkaSinkOptions<T>;
  /** Committers by subtask (created just before their writer, on the same thread): where the writer starts. */
  readonly #committers = new Map<string, KafkaCommitter>();

  constructor(options: KafkaSinkOptions<T>) {
    const g = options.guarantee ?? 'exactly-once';
    if (g !== 'exactly-once' && g !== 'at-least-once' && g !== 'none') throw new TypeError(`KafkaSink: guarantee must be 'exactly-once', 'at-least-once' or 'none', got ${JSON.stringify(g)}`);
    const p = options.partitioner ?? 'key-hash';
    if (p !== 'key-hash' && p !== 'fixed' && typeof p !== 'function') throw new TypeError(`KafkaSink: partitioner must be 'key-hash', 'fixed' or a function, got ${JSON.stringify(p)}`);
    this.#o = options;
    this.commitRetry = options.commitRetry;
  }

  async createWriter(ctx: SinkContext): Promise<PrecommittingSinkWriter<T, KafkaCommittable>> {
    const o = this.#o;
    const kafka = kafkaClient(o.connection, `weir-sink-${ctx.operatorUid}-${ctx.subtaskIndex}`);
    if ((o.guarantee ?? 'exactly-once') !== 'exactly-once') {
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      await connectOrExplain(o.connection, () => producer.connect());
      return new DirectKafkaWriter(o, kafka, producer, ctx.subtaskIndex, ctx.parallelism);
    }
    const timeoutMs = this.#transactionTimeout(ctx);
    const committer = this.#committers.get(key(ctx));
    this.#committers.delete(key(ctx));
    watchProducerIds();
    return new TransactionalKafkaWriter(o, kafka, ctx.subtaskIndex, ctx.parallelism, sinkTransactionIdPrefix(o.transactionIdPrefix, ctx), committer?.firstSlot ?? 1, timeoutMs);
  }

  createCommitter(ctx: SinkContext): Committer<KafkaCommittable> {
    const o = this.#o;
    const committer = new KafkaCommitter({
      coordinators: new TransactionCoordinators(kafkaClient(o.connection, `weir-sink-${ctx.operatorUid}-${ctx.subtaskIndex}-committer`)),
      prefix: sinkTransactionIdPrefix(o.transactionIdPrefix, ctx),
      subtask: ctx.subtaskIndex,
      parallelism: ctx.parallelism,
      transactionTimeoutMs: o.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS,
      target: `Kafka ${describeBrokers(o.connection)}`,
      events: o.transactionEvents,
      log: ctx.log,
    });
    if ((o.guarantee ?? 'exactly-once') === 'exactly-once') this.#committers.set(key(ctx), committer);
    return committer;
  }

  /** The brokers abort a transaction older than its timeout: it must outlast a checkpoint's interval and timeout. */
  #transactionTimeout(ctx: SinkContext): number {
    const t = this.#o.transactionTimeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS;
    const c = ctx.checkpointing;
    if (c && c.intervalMs !== null && t < c.intervalMs + c.timeoutMs) throw new TransactionTimeoutTooShortError(t, c.intervalMs, c.timeoutMs);
    return t;
  }
}

function key(ctx: SinkContext): string {
  return `${ctx.jobId}/${ctx.operatorUid}/${ctx.subtaskIndex}/${ctx.attemptNumber}`;
}
