import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { SinkContext } from '../../api/sink.ts';
import type { CommitRetryPolicy, Committer, PrecommittingSinkWriter, TwoPhaseCommittingSink } from '../../api/two-phase-committing-sink.ts';
import { sinkTransactionIdPrefix } from '../database-sink/transaction-id.ts';
import { DuplicateWindowTooShortError } from './duplicate-window-too-short-error.ts';
import type { JetStreamCommittable } from './jetstream-committable.ts';
import { JetStreamCommitter } from './jetstream-committer.ts';
import { connectJetStream, describeServers } from './jetstream-connection.ts';
import type { JetStreamSinkOptions } from './jetstream-sink-options.ts';
import { PublishingJetStreamWriter, StagingJetStreamWriter } from './jetstream-sink-writer.ts';
import { Publisher } from './publisher.ts';
import { duplicateWindowMs, lookUpStream } from './stream-lookup.ts';

/**
 * Into a NATS JetStream stream, exactly once by default: a checkpoint's messages are published
 * after it completes, each with a `Nats-Msg-Id` of `<prefix>-<subtask>-<checkpoint>-<index>`
 * (the prefix is stable across resumes), so the server drops a replayed publication within the
 * stream's duplicate_window; beyond it the committer reads back what it already wrote (or
 * refuses). nats-server 2.9 has no atomic batch publish: readers may see part of a checkpoint's
 * messages before the rest, never one twice. The messages of a checkpoint are held in memory
 * and in the checkpoint until then. `guarantee: 'at-least-once'` publishes at once instead.
 */
export class JetStreamSink<T> implements TwoPhaseCommittingSink<T, JetStreamCommittable> {
  /** A restore from an older checkpoint replays records into new checkpoints, whose ids differ. */
  readonly idempotentCommits = false;
  readonly commitRetry: CommitRetryPolicy | undefined;
  readonly #o: JetStreamSinkOptions<T>;

  constructor(options: JetStreamSinkOptions<T>) {
    if (!options.stream) throw new TypeError('JetStreamSink: stream must be given');
    const g = options.guarantee ?? 'exactly-once';
    if (g !== 'exactly-once' && g !== 'at-least-once') throw new TypeError(`JetStreamSink: guarantee must be 'exactly-once' or 'at-least-once', got ${JSON.stringify(g)}`);
    this.#o = options;
    this.commitRetry = options.commitRetry;
  }

  async createWriter(ctx: SinkContext): Promise<PrecommittingSinkWriter<T, JetStreamCommittable>> {
    const o = this.#o;
    const connection = await connectJetStream(o.connection, `weir ${ctx.operatorUid} ${ctx.subtaskIndex}`);
    try {
      const jsm = await jetstreamManager(connection);
      const create = o.createStream === true ? {} : o.createStream === false ? undefined : o.createStream;
      const info = await lookUpStream(jsm, o.stream, describeServers(o.connection), create);
      if ((o.guarantee ?? 'exactly-once') === 'at-least-once') {
        return new PublishingJetStreamWriter(o, connection, new Publisher(jetstream(connection), o.stream, this.#target(), o.maxInFlight ?? 512));
      }
      this.#checkWindow(ctx, duplicateWindowMs(info));
      await connection.close();
      return new StagingJetStreamWriter(o, ctx.subtaskIndex);
    } catch (e) {
      await connection.close().catch(() => {});
      throw e;
    }
  }

  createCommitter(ctx: SinkContext): Committer<JetStreamCommittable> {
    return new JetStreamCommitter({
      connect: () => connectJetStream(this.#o.connection, `weir ${ctx.operatorUid} ${ctx.subtaskIndex} committer`),
      stream: this.#o.stream,
      servers: describeServers(this.#o.connection),
      target: this.#target(),
      prefix: sinkTransactionIdPrefix(this.#o.transactionIdPrefix, ctx),
      beyondDuplicateWindow: this.#o.beyondDuplicateWindow ?? 'read-back',
      maxInFlight: this.#o.maxInFlight ?? 512,
      log: ctx.log,
    });
  }

  /** A commit retried up to a checkpoint's timeout after its pre-commit must still be recognized by its ids. */
  #checkWindow(ctx: SinkContext, windowMs: number): void {
    const c = ctx.checkpointing;
    if (!c || c.intervalMs === null) return;
    if (windowMs >= c.intervalMs + c.timeoutMs) return;
    const error = new DuplicateWindowTooShortError(this.#o.stream, windowMs, c.intervalMs, c.timeoutMs);
    if ((this.#o.duplicateWindowCheck ?? 'fail') === 'fail') throw error;
    if (ctx.subtaskIndex === 0) ctx.log.warn(error.message);
  }

  #target(): string {
    return `JetStream ${describeServers(this.#o.connection)} stream ${this.#o.stream}`;
  }
}
