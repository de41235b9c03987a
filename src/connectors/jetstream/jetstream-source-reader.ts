import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { InputStatus, SourceOutput, SourceReader, SourceReaderContext } from '../../api/source.ts';
import { JetStreamDeserializationError } from './deserialization-error.ts';
import { connectJetStream } from './jetstream-connection.ts';
import type { JetStreamMessageInfo, JetStreamSourceOptions } from './jetstream-source-options.ts';
import type { JetStreamSplit } from './jetstream-split.ts';
import type { JetStreamUnreadableMessage } from './unreadable-message.ts';

/** What #deserialize returns for a message it sent to the side output. */
const UNREADABLE = Symbol('unreadable');
/** Records emitted per pollNext: small enough that checkpoints and mails get their turn. */
const POLL_BATCH = 256;
/** How long a split may get nothing, with the reader's queue empty, before the server is asked whether it has messages for it. */
const STALL_MS = 20_000;

/** A split being read: its position, and the consumer that reads it. */
interface SplitState {
  readonly filter: string;
  nextSequence: number;
  readonly endSequence: number | undefined;
  /** Messages the server still had for it after the last one delivered (lag). */
  pending: number;
  finished: boolean;
  /** When its consumer last delivered (or was created), ms. */
  lastDelivery: number;
  messages?: ConsumerMessages;
}

/**
 * Reads its splits' subject filters, each through an ordered consumer from the split's
 * sequence (it recreates itself on the server side from its last delivery after a reconnect or a
 * failover). Messages wait in one queue until pollNext emits them, so the position advances only
 * with what was emitted; a full queue stops the pulling.
 */
export class JetStreamSourceReader<T> implements SourceReader<T, JetStreamSplit> {
  readonly #o: JetStreamSourceOptions<T>;
  readonly #ctx: SourceReaderContext;
  readonly #splits = new Map<string, SplitState>();
  readonly #queue: { split: SplitState; msg: JsMsg }[] = [];
  #head = 0;
  #connection: NatsConnection | undefined;
  #js: JetStreamClient | undefined;
  #noMoreSplits = false;
  #failure: unknown;
  #available: (() => void) | undefined;
  /** The split loops waiting for room in the queue (each split reads in a loop of its own). */
  readonly #roomWaiters: Array<() => void> = [];
  #closed = false;
  #watchdog: ReturnType<typeof setInterval> | undefined;
  #emitted = 0;
  #unreadableCount = 0;

  constructor(o: JetStreamSourceOptions<T>, ctx: SourceReaderContext) {
    this.#o = o;
    this.#ctx = ctx;
  }

  async start(): Promise<void> {
    this.#connection = await connectJetStream(this.#o.connection, `weir source ${this.#o.stream} ${this.#ctx.operatorUid} ${this.#ctx.subtaskIndex}`);
    this.#js = jetstream(this.#connection);
    this.#watchdog = setInterval(() => void this.#checkStalls().catch(() => {}), STALL_MS / 4);
    this.#watchdog.unref();
  }

  addSplits(splits: JetStreamSplit[]): void {
    for (const s of splits) {
      const state: SplitState = { filter: s.filter, nextSequence: s.nextSequence, endSequence: s.endSequence, pending: 0, finished: false, lastDelivery: Date.now() };
      this.#splits.set(s.filter, state);
      if (state.endSequence !== undefined && state.nextSequence > state.endSequence) {
        state.finished = true;
        continue;
      }
      this.#read(state).catch((e: unknown) => this.#fail(e));
    }
  }

  notifyNoMoreSplits(): void {
    this.#noMoreSplits = true;
    this.#wake();
  }

  async #read(split: SplitState): Promise<void> {
    const js = this.#js!;
    if (split.endSequence !== undefined && (await this.#pendingFrom(split)) === 0) {
      split.finished = true;
      this.#wake();
      return;
    }
    const consumer = await js.consumers.get(this.#o.stream, { filter_subjects: split.filter, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: split.nextSequence });
    if (this.#closed || split.finished) return;
    const messages = await consumer.consume({ max_messages: Math.min(1024, this.#o.bufferSize ?? 4096) });
    split.messages = messages;
    split.lastDelivery = Date.now();
    for await (const msg of messages) {
      if (this.#closed || split.finished) break;
      split.lastDelivery = Date.now();
      this.#queue.push({ split, msg });
      this.#wake();
      while (this.#queue.length - this.#head >= (this.#o.bufferSize ?? 4096) && !this.#closed) await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
    }
    // The client ends a consumer's messages when it gives up on it (its server-side consumer could
    // not be recreated after a node was lost): a split that stopped there would never end. The
    // task fails instead, and the restart goes on from the checkpoint's sequence.
    if (!this.#closed && !split.finished) throw new Error(`the consumer of JetStream stream '${this.#o.stream}' (subjects ${split.filter}) stopped delivering after sequence ${split.nextSequence - 1}`);
  }

  /** How many messages match the split's filter from its position on (an ephemeral consumer without acks says). */
  async #pendingFrom(split: SplitState): Promise<number> {
    const jsm = await jetstreamManager(this.#connection!);
    const info = await jsm.consumers.add(this.#o.stream, {
      ack_policy: AckPolicy.None,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: split.nextSequence,
      filter_subject: split.filter,
      mem_storage: true,
      inactive_threshold: 30_000_000_000,
    });
    await jsm.consumers.delete(this.#o.stream, info.name).catch(() => {});
    return info.num_pending;
  }

  /**
   * A consumer whose server-side part was lost with a node may neither deliver nor end (seen with
   * nats-server 2.9 and the 3.3 client): when a split got nothing for STALL_MS while nothing of
   * it waits in the queue, and the server has messages for it, the reader fails and the restart
   * goes on from the checkpoint's sequence.
   */
  async #checkStalls(): Promise<void> {
    if (this.#head < this.#queue.length) return;
    const now = Date.now();
    for (const split of this.#splits.values()) {
      if (split.finished || split.messages === undefined || now - split.lastDelivery < STALL_MS) continue;
      const pending = await this.#pendingFrom(split);
      if (pending > 0 && !split.finished && this.#head === this.#queue.length && Date.now() - split.lastDelivery >= STALL_MS) {
        this.#fail(new Error(`the consumer of JetStream stream '${this.#o.stream}' (subjects ${split.filter}) delivered nothing for ${Date.now() - split.lastDelivery} ms while the stream holds ${pending} message(s) for it from sequence ${split.nextSequence}`));
        return;
      }
      split.lastDelivery = Date.now();
    }
  }

  pollNext(output: SourceOutput<T>): InputStatus {
    if (this.#failure !== undefined) throw this.#failure;
    let n = 0;
    while (this.#head < this.#queue.length && n < POLL_BATCH) {
      const { split, msg } = this.#queue[this.#head++]!;
      if (split.finished) continue;
      if (split.endSequence !== undefined && msg.seq > split.endSequence) {
        this.#finish(split, output);
        continue;
      }
      const out = output.createOutputForSplit?.(split.filter) ?? output;
      const value = this.#deserialize(msg, output);
      if (value !== UNREADABLE) out.collect(value, this.#eventTime(msg));
      n++;
      this.#emitted++;
      split.nextSequence = msg.seq + 1;
      split.pending = msg.info.pending;
      if (split.endSequence !== undefined && (msg.seq >= split.endSequence || msg.info.pending === 0)) this.#finish(split, output);
    }
    if (this.#head === this.#queue.length) {
      this.#queue.length = 0;
      this.#head = 0;
    } else if (this.#head > 4096) {
      this.#queue.splice(0, this.#head);
      this.#head = 0;
    }
    this.#makeRoom();
    if (this.#head < this.#queue.length) return 'more';
    if (this.#noMoreSplits && [...this.#splits.values()].every((s) => s.finished)) return 'end';
    return 'nothing';
  }

  /** The message as a record, or UNREADABLE when it went to the deserialization-error side output. */
  #deserialize(msg: JsMsg, output: SourceOutput<T>): T | typeof UNREADABLE {
    const o = this.#o;
    try {
      if (!o.deserializer) return new TextDecoder('utf-8', { fatal: true }).decode(msg.data) as T;
      return o.deserializer(msg.data, this.#info(msg));
    } catch (e) {
      const error = new JetStreamDeserializationError(o.stream, msg.seq, msg.subject, e);
      const tag = o.deserializationErrorOutput;
      // An output without side outputs (a wrapper's) cannot take it: failing is better than losing it.
      if (tag === undefined || output.output === undefined) throw error;
      output.output(tag, this.#unreadable(msg, e), storedAt(msg));
      this.#unreadableCount++;
      return UNREADABLE;
    }
  }

  #unreadable(msg: JsMsg, cause: unknown): JetStreamUnreadableMessage {
    const headers: Record<string, string> = {};
    if (msg.headers) for (const [k, v] of msg.headers) headers[k] = v.join(',');
    const reason = cause instanceof Error ? cause.message : String(cause);
    return { stream: this.#o.stream, subject: msg.subject, sequence: msg.seq, timestamp: storedAt(msg), headers, data: msg.data.slice(), reason };
  }

  #info(msg: JsMsg): JetStreamMessageInfo {
    const headers = new Map<string, string>();
    if (msg.headers) for (const [k, v] of msg.headers) headers.set(k, v.join(','));
    return { stream: this.#o.stream, subject: msg.subject, sequence: msg.seq, timestamp: storedAt(msg), headers };
  }

  #eventTime(msg: JsMsg): number {
    const h = this.#o.eventTimeHeader;
    if (h !== undefined) {
      const v = Number(msg.headers?.get(h));
      if (Number.isFinite(v)) return v;
    }
    return storedAt(msg);
  }

  #finish(split: SplitState, output: SourceOutput<T>): void {
    split.finished = true;
    output.releaseOutputForSplit?.(split.filter);
    split.messages?.stop();
  }

  isAvailable(): Promise<void> {
    if (this.#head < this.#queue.length || this.#failure !== undefined || (this.#noMoreSplits && [...this.#splits.values()].every((s) => s.finished))) return Promise.resolve();
    return new Promise<void>((resolve) => (this.#available = resolve));
  }

  snapshotState(): JetStreamSplit[] {
    return [...this.#splits.values()].map((s) => (s.endSequence !== undefined ? { filter: s.filter, nextSequence: s.nextSequence, endSequence: s.endSequence } : { filter: s.filter, nextSequence: s.nextSequence }));
  }

  metrics(): Record<string, number> {
    let pending = 0;
    for (const s of this.#splits.values()) if (!s.finished) pending += s.pending;
    return { pendingMessages: pending, messagesEmitted: this.#emitted, unreadableMessages: this.#unreadableCount };
  }

  describeActivity(): string {
    return `reading stream ${this.#o.stream} subjects ${[...this.#splits.keys()].join(', ')}`;
  }

  #makeRoom(): void {
    for (const resolve of this.#roomWaiters.splice(0)) resolve();
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
    clearInterval(this.#watchdog);
    this.#makeRoom();
    for (const s of this.#splits.values()) s.messages?.stop();
    await this.#connection?.close().catch(() => {});
  }
}

/** The time the stream stored the message, ms since the epoch. */
function storedAt(msg: JsMsg): number {
  return Number(msg.info.timestampNanos / 1_000_000);
}
