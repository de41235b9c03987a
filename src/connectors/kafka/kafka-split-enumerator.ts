import type { Admin } from 'kafkajs';
import type { EnumeratorContext, SplitEnumerator } from '../../api/source.ts';
import { connectOrExplain, describeBrokers, kafkaClient } from './kafka-connection.ts';
import type { KafkaSourceOptions } from './kafka-source-options.ts';
import { splitId, type KafkaSplit } from './kafka-split.ts';
import { partitionSplits, resolveTopics } from './partition-offsets.ts';

/**
 * What the enumerator keeps in checkpoints: every partition (`topic-partition`) it handed out.
 * Each is in exactly one reader's state, with its position, from the checkpoint whose trigger
 * followed the assignment; one found later is read from its earliest offset.
 */
export interface KafkaEnumeratorState {
  readonly version: 1;
  readonly assigned: readonly string[];
}

/**
 * Flink's partition discovery (partition.discovery.interval.ms): hands out the partitions of the
 * matching topics at the start (from the starting offsets), then looks again every interval and
 * hands out the topics and partitions that appeared since, from earliest, round-robin over the
 * readers, without a restart. A discovery that fails (brokers away) is logged and tried again.
 */
export class KafkaSplitEnumerator implements SplitEnumerator<KafkaSplit, KafkaEnumeratorState | undefined> {
  readonly #o: KafkaSourceOptions<unknown>;
  readonly #ctx: EnumeratorContext<KafkaSplit>;
  readonly #intervalMs: number;
  #state: KafkaEnumeratorState | undefined;
  #admin: Admin | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #discovering: Promise<void> | undefined;
  #closed: Promise<void> | undefined;
  #discoveries = 0;

  constructor(o: KafkaSourceOptions<unknown>, ctx: EnumeratorContext<KafkaSplit>, intervalMs: number, restored: KafkaEnumeratorState | undefined) {
    this.#o = o;
    this.#ctx = ctx;
    this.#intervalMs = intervalMs;
    this.#state = restored;
  }

  async start(): Promise<void> {
    const admin = kafkaClient(this.#o.connection, 'weir-source-enumerator').admin();
    await connectOrExplain(this.#o.connection, () => admin.connect());
    this.#admin = admin;
    if (this.#state === undefined) {
      const splits = await this.#splits(this.#o.startingOffsets ?? 'earliest');
      this.#state = { version: 1, assigned: [] };
      this.#assign(splits);
    }
    this.#schedule();
  }

  handleSplitRequest(): void {
    // Splits are pushed as partitions are found; readers never run out in an unbounded source.
  }

  snapshotState(): KafkaEnumeratorState | undefined {
    return this.#state;
  }

  metrics(): Record<string, number> {
    return { partitions: this.#state?.assigned.length ?? 0, partitionDiscoveries: this.#discoveries };
  }

  async #splits(start: NonNullable<KafkaSourceOptions<unknown>['startingOffsets']>): Promise<KafkaSplit[]> {
    const o = this.#o;
    const topics = await resolveTopics(this.#admin!, describeBrokers(o.connection), o.topics, o.topicPattern);
    return partitionSplits(this.#admin!, topics, start, o.groupId ?? 'weir', false);
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#discovering = this.#discover()
        .catch((e: unknown) => this.#ctx.log.warn(`discovering new Kafka partitions failed (tried again in ${this.#intervalMs} ms): ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => this.#schedule());
    }, this.#intervalMs);
    this.#timer.unref?.();
  }

  async #discover(): Promise<void> {
    // Partitions that appear after the start hold nothing the job has seen: all of them is read.
    const splits = await this.#splits('earliest');
    this.#discoveries++;
    if (this.#closed) return;
    // After the awaits, all at once: a snapshot sees the partitions either assigned or not.
    this.#assign(splits);
  }

  /** Hands the partitions not yet assigned to readers, round-robin in the order they were found. */
  #assign(splits: readonly KafkaSplit[]): void {
    const s = this.#state!;
    const known = new Set(s.assigned);
    const fresh = splits.filter((split) => !known.has(splitId(split)));
    if (fresh.length === 0) return;
    const bySubtask = new Map<number, KafkaSplit[]>();
    fresh.forEach((split, i) => {
      const subtask = (s.assigned.length + i) % this.#ctx.parallelism;
      bySubtask.set(subtask, [...(bySubtask.get(subtask) ?? []), split]);
    });
    this.#state = { ...s, assigned: [...s.assigned, ...fresh.map(splitId)] };
    for (const [subtask, subtaskSplits] of bySubtask) this.#ctx.assignSplits(subtask, subtaskSplits);
    if (s.assigned.length > 0) this.#ctx.log.info(`new Kafka partition(s) to read: ${fresh.map(splitId).join(', ')}`);
  }

  close(): Promise<void> {
    return (this.#closed ??= (async () => {
      clearTimeout(this.#timer);
      await this.#discovering;
      await this.#admin?.disconnect().catch(() => {});
    })());
  }
}
