import { randomUUID } from 'node:crypto';
import type { Admin, Batch, Consumer, KafkaMessage } from 'kafkajs';
import type { InputStatus, SourceOutput, SourceReader, SourceReaderContext } from '../../api/source.ts';
import { fixedAssigner } from './fixed-assigner.ts';
import { connectOrExplain, kafkaClient } from './kafka-connection.ts';
import { KafkaDeserializationError } from './kafka-deserialization-error.ts';
import type { KafkaRecord } from './kafka-record.ts';
import type { KafkaSourceOptions } from './kafka-source-options.ts';
import { splitId, type KafkaSplit } from './kafka-split.ts';
import { SplitOutputs } from './split-outputs.ts';
import type { KafkaUnreadableRecord } from './kafka-unreadable-record.ts';

/** What #deserialize returns for a record it sent to the deserialization-error side output. */
const UNREADABLE = Symbol('unreadable');
/** Records emitted per pollNext: small enough that checkpoints and mails get their turn. */
const POLL_BATCH = 256;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A partition being read: the emitted position, and how far the fetching got. */
interface SplitState {
  readonly id: string;
  readonly topic: string;
  readonly partition: number;
  readonly endOffset: number | undefined;
  /** Everything before it was emitted: what checkpoints keep. */
  nextOffset: number;
  /** Records fetched before it are queued or emitted; a refetch of them is dropped. */
  fetchedNext: number;
  /** Bumped when the consumer seeks: queued records of an older seek are dropped. */
  seek: number;
  highWatermark: number;
  finished: boolean;
}

interface Queued {
  readonly split: SplitState;
  readonly seek: number;
  readonly message: KafkaMessage;
}

/**
 * Reads its splits through one kafkajs consumer (a group of its own with a fixed assignment),
 * sought to the splits' offsets whenever the consumer joins. Records wait in one queue until
 * pollNext emits them, so the position advances only with what was emitted; a full queue pauses
 * the fetching.
 */
export class KafkaSourceReader<T> implements SourceReader<T, KafkaSplit> {
  readonly #o: KafkaSourceOptions<T>;
  readonly #ctx: SourceReaderContext;
  readonly #splits = new Map<string, SplitState>();
  /** Each split's watermark output, open from the first poll after its assignment whether it has records or not. */
  readonly #outputs = new SplitOutputs<T>();
  #queue: Queued[] = [];
  #head = 0;
  #consumer: Consumer | undefined;
  #consumerChange: Promise<void> = Promise.resolve();
  #paused = false;
  #noMoreSplits = false;
  #failure: unknown;
  #available: (() => void) | undefined;
  #closed = false;
  #emitted = 0;
  #unreadableCount = 0;
  readonly #pendingCommits = new Map<number, KafkaSplit[]>();
  #admin: Promise<Admin> | undefined;
  #endsLookup: Promise<void> = Promise.resolve();
  #commitFailures = 0;

  constructor(o: KafkaSourceOptions<T>, ctx: SourceReaderContext) {
    this.#o = o;
    this.#ctx = ctx;
  }

  addSplits(splits: KafkaSplit[]): void {
    for (const s of splits) {
      const id = splitId(s);
      const finished = s.endOffset !== undefined && s.nextOffset >= s.endOffset;
      this.#splits.set(id, { id, topic: s.topic, partition: s.partition, endOffset: s.endOffset, nextOffset: s.nextOffset, fetchedNext: s.nextOffset, seek: 0, highWatermark: s.nextOffset, finished });
      if (!finished) this.#outputs.assign(id);
    }
    this.#restartConsumer();
    // A reader waiting for records is polled again only when woken: the new splits' outputs open at that poll.
    this.#wake();
  }

  notifyNoMoreSplits(): void {
    this.#noMoreSplits = true;
    this.#wake();
  }

  /** kafkajs fixes a consumer's topics when it runs: new splits take a new consumer. */
  #restartConsumer(): void {
    this.#consumerChange = this.#consumerChange
      .then(async () => {
        await this.#consumer?.disconnect().catch(() => {});
        this.#consumer = undefined;
        const open = [...this.#splits.values()].filter((s) => !s.finished);
        if (this.#closed || open.length === 0) return;
        this.#consumer = await this.#startConsumer(open);
      })
      .catch((e: unknown) => this.#fail(e));
  }

  async #startConsumer(open: SplitState[]): Promise<Consumer> {
    const o = this.#o;
    const byTopic = new Map<string, number[]>();
    for (const s of open) byTopic.set(s.topic, [...(byTopic.get(s.topic) ?? []), s.partition]);
    const kafka = kafkaClient(o.connection, `weir-source-${this.#ctx.operatorUid}-${this.#ctx.subtaskIndex}`);
    const consumer = kafka.consumer({
      groupId: `${o.groupId ?? 'weir'}.reader.${this.#ctx.operatorUid}.${this.#ctx.subtaskIndex}.${randomUUID().slice(0, 8)}`,
      partitionAssigners: [fixedAssigner(() => byTopic)],
      allowAutoTopicCreation: false,
      // kafkajs waits up to 5 s for a fetch to fill; a reader that just resumed or reached the end would stall on it.
      maxWaitTimeInMs: 250,
      readUncommitted: o.isolationLevel === 'read_uncommitted',
      retry: { retries: Number.MAX_SAFE_INTEGER, maxRetryTime: 2_000 },
    });
    // Each join starts from the group's (absent) committed offsets: the splits' own positions are sought instead.
    consumer.on(consumer.events.GROUP_JOIN, () => {
      for (const s of open) {
        if (s.finished) continue;
        s.seek++;
        s.fetchedNext = s.nextOffset;
        consumer.seek({ topic: s.topic, partition: s.partition, offset: String(s.nextOffset) });
      }
    });
    consumer.on(consumer.events.CRASH, (e) => {
      if (!(e.payload as { restart?: boolean }).restart) this.#fail(e.payload.error);
    });
    await connectOrExplain(o.connection, () => consumer.connect());
    await consumer.subscribe({ topics: [...byTopic.keys()], fromBeginning: true });
    this.#paused = false;
    await consumer.run({ autoCommit: false, eachBatch: async ({ batch }) => this.#take(batch, consumer) });
    // A figure only: the reader does not wait for it, and a look-up that fails leaves the lag to the fetches.
    this.#endsLookup = this.#endsLookup.then(() => this.#learnEnds(open)).catch(() => {});
    return consumer;
  }

  /**
   * Each split's log end as the broker has it now, so that the lag of a partition not fetched yet
   * (the reader may pause on a full buffer before its first fetch of it) is its whole backlog, not 0.
   */
  async #learnEnds(open: readonly SplitState[]): Promise<void> {
    if (this.#closed) return;
    const admin = await this.#adminClient();
    for (const topic of new Set(open.map((s) => s.topic))) {
      const ends = await admin.fetchTopicOffsets(topic);
      for (const e of ends) {
        const split = this.#splits.get(splitId({ topic, partition: e.partition }));
        if (split) split.highWatermark = Math.max(split.highWatermark, Number(e.high));
      }
    }
  }

  /** One admin client for the reader's offset commits and end look-ups, made on first use. */
  #adminClient(): Promise<Admin> {
    this.#admin ??= (async () => {
      const admin = kafkaClient(this.#o.connection, `weir-source-offsets-${this.#ctx.subtaskIndex}`).admin();
      await admin.connect();
      return admin;
    })();
    return this.#admin;
  }

  #take(batch: Batch, consumer: Consumer): void {
    const split = this.#splits.get(splitId(batch));
    if (split === undefined || split.finished) return;
    split.highWatermark = Number(batch.highWatermark);
    for (const message of batch.messages) {
      const offset = Number(message.offset);
      if (offset < split.fetchedNext) continue;
      split.fetchedNext = offset + 1;
      this.#queue.push({ split, seek: split.seek, message });
    }
    // Transaction markers take offsets without being records: the fetch went past them.
    if (!batch.isEmpty()) split.fetchedNext = Math.max(split.fetchedNext, Number(batch.lastOffset()) + 1);
    if (this.#queue.length - this.#head >= (this.#o.bufferSize ?? 4096) && !this.#paused) {
      this.#paused = true;
      consumer.pause([...this.#topics()].map((topic) => ({ topic })));
    }
    this.#wake();
  }

  pollNext(output: SourceOutput<T>): InputStatus {
    if (this.#failure !== undefined) throw this.#failure;
    this.#outputs.openAssigned(output);
    let n = 0;
    while (this.#head < this.#queue.length && n < POLL_BATCH) {
      const { split, seek, message } = this.#queue[this.#head++]!;
      if (seek !== split.seek || split.finished) continue;
      const offset = Number(message.offset);
      if (split.endOffset !== undefined && offset >= split.endOffset) continue;
      const record = toRecord(split, message);
      const value = this.#deserialize(record, output);
      split.nextOffset = offset + 1;
      n++;
      if (value === undefined || value === UNREADABLE) continue;
      this.#outputs.of(split.id, output).collect(value, record.timestamp);
      this.#emitted++;
    }
    this.#finishBounded(output);
    this.#compact();
    if (this.#head < this.#queue.length) return 'more';
    if (this.#noMoreSplits && this.#allFinished()) return 'end';
    return 'nothing';
  }

  /** The record as a value, undefined to skip it, or UNREADABLE when it went to the deserialization-error side output. */
  #deserialize(record: KafkaRecord, output: SourceOutput<T>): T | undefined | typeof UNREADABLE {
    try {
      return this.#o.deserializer ? this.#o.deserializer(record) : ((record.value === null ? '' : utf8.decode(record.value)) as T);
    } catch (e) {
      const error = new KafkaDeserializationError(record.topic, record.partition, record.offset, e);
      const tag = this.#o.deserializationErrorOutput;
      // An output without side outputs (a wrapper's) cannot take it: failing is better than losing it.
      if (tag === undefined || output.output === undefined) throw error;
      output.output(tag, unreadable(record, e), record.timestamp);
      this.#unreadableCount++;
      return UNREADABLE;
    }
  }

  /** A bounded split ends once everything fetched up to its end offset was emitted. */
  #finishBounded(output: SourceOutput<T>): void {
    for (const s of this.#splits.values()) {
      if (s.finished || s.endOffset === undefined) continue;
      if (s.nextOffset >= s.endOffset || (s.fetchedNext >= s.endOffset && this.#queuedOf(s) === 0)) {
        s.finished = true;
        s.nextOffset = Math.max(s.nextOffset, s.endOffset);
        this.#outputs.release(s.id, output);
      }
    }
  }

  #queuedOf(s: SplitState): number {
    let n = 0;
    for (let i = this.#head; i < this.#queue.length; i++) if (this.#queue[i]!.split === s && this.#queue[i]!.seek === s.seek) n++;
    return n;
  }

  #compact(): void {
    if (this.#head === this.#queue.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 4096) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    if (this.#paused && this.#queue.length - this.#head < (this.#o.bufferSize ?? 4096) / 2 && this.#consumer) {
      this.#paused = false;
      this.#consumer.resume([...this.#topics()].map((topic) => ({ topic })));
    }
  }

  #topics(): Set<string> {
    return new Set([...this.#splits.values()].map((s) => s.topic));
  }

  #allFinished(): boolean {
    return [...this.#splits.values()].every((s) => s.finished);
  }

  isAvailable(): Promise<void> {
    if (this.#head < this.#queue.length || this.#failure !== undefined || this.#outputs.pending || (this.#noMoreSplits && this.#allFinished())) return Promise.resolve();
    return new Promise<void>((resolve) => (this.#available = resolve));
  }

  snapshotState(checkpointId: number): KafkaSplit[] {
    const splits = [...this.#splits.values()].map((s): KafkaSplit => (s.endOffset !== undefined ? { topic: s.topic, partition: s.partition, nextOffset: s.nextOffset, endOffset: s.endOffset } : { topic: s.topic, partition: s.partition, nextOffset: s.nextOffset }));
    if (this.#o.commitOffsetsOnCheckpoint !== false) this.#pendingCommits.set(checkpointId, splits);
    return splits;
  }

  /** The group's committed offsets follow completed checkpoints, for monitoring: a failure to commit them is counted, never fatal. */
  async notifyCheckpointComplete(checkpointId: number): Promise<void> {
    const splits = this.#pendingCommits.get(checkpointId);
    for (const id of this.#pendingCommits.keys()) if (id <= checkpointId) this.#pendingCommits.delete(id);
    if (splits === undefined || splits.length === 0) return;
    try {
      const admin = await this.#adminClient();
      for (const topic of new Set(splits.map((s) => s.topic))) {
        const partitions = splits.filter((s) => s.topic === topic).map((s) => ({ partition: s.partition, offset: String(s.nextOffset) }));
        await admin.setOffsets({ groupId: this.#o.groupId ?? 'weir', topic, partitions });
      }
    } catch {
      this.#commitFailures++;
    }
  }

  metrics(): Record<string, number> {
    const m: Record<string, number> = { recordsEmitted: this.#emitted, unreadableRecords: this.#unreadableCount, offsetCommitFailures: this.#commitFailures };
    let lag = 0;
    for (const s of this.#splits.values()) {
      const l = s.finished ? 0 : Math.max(0, s.highWatermark - s.nextOffset);
      m[`consumerLag.${s.id}`] = l;
      lag += l;
    }
    m.consumerLag = lag;
    return m;
  }

  describeActivity(): string {
    return `reading Kafka partitions ${[...this.#splits.keys()].join(', ')}`;
  }

  #wake(): void {
    const a = this.#available;
    this.#available = undefined;
    a?.();
  }

  #fail(e: unknown): void {
    if (this.#closed) return;
    this.#failure ??= e;
    this.#wake();
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#consumerChange;
    await this.#consumer?.disconnect().catch(() => {});
    // Not waited for: with a broker away the end look-up retries for minutes, and a restart would wait
    // on it. Disconnecting the admin ends it (its rejection is caught where it was started).
    void this.#admin?.then((a) => a.disconnect()).catch(() => {});
  }
}

function toRecord(split: SplitState, m: KafkaMessage): KafkaRecord {
  const headers = new Map<string, Uint8Array>();
  for (const [k, v] of Object.entries(m.headers ?? {})) {
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    if (last !== undefined) headers.set(k, typeof last === 'string' ? Buffer.from(last) : last);
  }
  return { topic: split.topic, partition: split.partition, offset: Number(m.offset), timestamp: Number(m.timestamp), key: m.key, value: m.value, headers };
}

function unreadable(r: KafkaRecord, cause: unknown): KafkaUnreadableRecord {
  const headers: Record<string, Uint8Array> = {};
  for (const [k, v] of r.headers) headers[k] = Uint8Array.from(v);
  const copy = (b: Uint8Array | null) => (b === null ? null : Uint8Array.from(b));
  return { topic: r.topic, partition: r.partition, offset: r.offset, timestamp: r.timestamp, key: copy(r.key), headers, value: copy(r.value), reason: cause instanceof Error ? cause.message : String(cause) };
}
