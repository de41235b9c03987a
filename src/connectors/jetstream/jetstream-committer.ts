import { DeliverPolicy, jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../../log/logger.ts';
import type { Committer } from '../../api/two-phase-committing-sink.ts';
import type { TransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { DuplicateWindowExceededError } from './duplicate-window-exceeded-error.ts';
import type { JetStreamCommittable } from './jetstream-committable.ts';
import { messageId, messageIdPrefix } from './message-id.ts';
import { Publisher } from './publisher.ts';
import { duplicateWindowMs, lookUpStream } from './stream-lookup.ts';

/** Time kept free at the end of the duplicate window for clock differences between weir and the server and for the publication itself (a quarter of a short window). */
const WINDOW_MARGIN_MS = 2_000;
/** How far before a checkpoint's pre-commit a read-back starts (the server's clock may be behind weir's). */
const READ_BACK_SKEW_MS = 60_000;

export interface JetStreamCommitterSetup {
  readonly connect: () => Promise<NatsConnection>;
  readonly stream: string;
  readonly servers: string;
  readonly target: string;
  readonly prefix: TransactionIdPrefix;
  readonly beyondDuplicateWindow: 'read-back' | 'refuse';
  readonly maxInFlight: number;
  readonly log: Logger;
}

/**
 * Publishes a completed checkpoint's messages with ids `<prefix>-<subtask>-<checkpoint>-<index>`.
 * A commit again (a retry, a restore) is dropped by the server while the ids are within the
 * stream's duplicate window; for older checkpoints it first reads back the ids of that checkpoint
 * that are already in the stream (messages since the pre-commit, headers only) and publishes only
 * the others, or refuses if told to.
 */
export class JetStreamCommitter implements Committer<JetStreamCommittable> {
  readonly target: string;
  readonly #s: JetStreamCommitterSetup;
  #connection: NatsConnection | undefined;
  #js: JetStreamClient | undefined;
  #windowMs: number | undefined;
  /** Committables (subtask/checkpoint) that may have been published before: restored ones, and those this committer tried already (a retry). Only their replays rely on the window. */
  readonly #maybePublished = new Set<string>();

  constructor(setup: JetStreamCommitterSetup) {
    this.#s = setup;
    this.target = setup.target;
  }

  recover(retained: readonly JetStreamCommittable[]): void {
    for (const c of retained) this.#maybePublished.add(key(c));
  }

  async commit(committables: readonly JetStreamCommittable[]): Promise<void> {
    const js = await this.#client();
    const windowMs = await this.#window();
    // Restored committables come in no particular order: a subtask's checkpoints go out in order.
    const ordered = [...committables].sort((a, b) => a.checkpointId - b.checkpointId || a.subtask - b.subtask);
    const publisher = new Publisher(js, this.#s.stream, this.target, this.#s.maxInFlight);
    for (const c of ordered) {
      const age = Date.now() - c.createdAt;
      const replay = this.#maybePublished.has(key(c));
      this.#maybePublished.add(key(c));
      let skip: ReadonlySet<number> = new Set();
      if (replay && age + Math.min(WINDOW_MARGIN_MS, windowMs / 4) >= windowMs) {
        if (this.#s.beyondDuplicateWindow === 'refuse') throw new DuplicateWindowExceededError(this.#s.stream, windowMs, c.checkpointId, age);
        skip = await this.#readBack(c);
        this.#s.log.info(`checkpoint ${c.checkpointId} of subtask ${c.subtask} is ${age} ms old, beyond stream '${this.#s.stream}''s duplicate_window of ${windowMs} ms: read back ${skip.size} of its ${c.messages.length} message(s) already in the stream, publishing the rest`);
      }
      for (let i = 0; i < c.messages.length; i++) {
        if (skip.has(i)) continue;
        publisher.publish(c.messages[i]!, messageId(this.#s.prefix, c.subtask, c.checkpointId, i));
        const room = publisher.room();
        if (room) await room;
      }
    }
    await publisher.drain();
    // Committed: only a restore (recover) brings them back.
    for (const c of ordered) this.#maybePublished.delete(key(c));
  }

  /** The indexes of a checkpoint's messages that are in the stream already. */
  async #readBack(c: JetStreamCommittable): Promise<Set<number>> {
    const connection = await this.#conn();
    const jsm = await jetstreamManager(connection);
    const info = await jsm.streams.info(this.#s.stream);
    const found = new Set<number>();
    const start = c.createdAt - READ_BACK_SKEW_MS;
    const lastSeq = info.state.last_seq;
    if (info.state.messages === 0 || Date.parse(info.state.last_ts) < start) return found;
    const idPrefix = messageIdPrefix(this.#s.prefix, c.subtask, c.checkpointId);
    const consumer = await (await this.#client()).consumers.get(this.#s.stream, { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(start).toISOString(), headers_only: true });
    const messages = await consumer.consume({ max_messages: 1000 });
    try {
      for await (const m of messages) {
        const id = m.headers?.get('Nats-Msg-Id') ?? '';
        if (id.startsWith(idPrefix)) found.add(Number(id.slice(idPrefix.length)));
        if (m.seq >= lastSeq) break;
      }
    } finally {
      messages.stop();
      await consumer.delete().catch(() => {});
    }
    return found;
  }

  async #window(): Promise<number> {
    if (this.#windowMs === undefined) {
      const jsm = await jetstreamManager(await this.#conn());
      this.#windowMs = duplicateWindowMs(await lookUpStream(jsm, this.#s.stream, this.#s.servers));
    }
    return this.#windowMs;
  }

  async #client(): Promise<JetStreamClient> {
    this.#js ??= jetstream(await this.#conn());
    return this.#js;
  }

  async #conn(): Promise<NatsConnection> {
    this.#connection ??= await this.#s.connect();
    return this.#connection;
  }

  async close(): Promise<void> {
    const c = this.#connection;
    this.#connection = undefined;
    this.#js = undefined;
    await c?.close().catch(() => {});
  }
}

function key(c: JetStreamCommittable): string {
  return `${c.subtask}/${c.checkpointId}`;
}
