import type { CommitRetryPolicy } from '../../api/two-phase-committing-sink.ts';
import type { JetStreamConnectionOptions } from './jetstream-connection.ts';
import type { CreateStreamOptions } from './stream-lookup.ts';

/**
 * 'exactly-once': a checkpoint's messages are published once it completes, with message ids the
 * server deduplicates. 'at-least-once': published at once (lower latency; a restore replays what
 * followed the checkpoint restored, so readers may see a message twice).
 */
export type JetStreamDeliveryGuarantee = 'exactly-once' | 'at-least-once';

export interface JetStreamSinkOptions<T> {
  readonly connection: JetStreamConnectionOptions;
  /** The stream that must capture every subject written (checked on each publication's ack). */
  readonly stream: string;
  /** The subject of a record: one for all, or one per record (inside the stream's subjects). */
  readonly subject: string | ((value: T) => string);
  /** The payload of a record. Unset: JSON.stringify. */
  readonly serializer?: (value: T) => string | Uint8Array;
  /** Headers of a record's message (Nats-Msg-Id is the sink's own). */
  readonly headers?: (value: T) => Readonly<Record<string, string>>;
  /** Unset: 'exactly-once'. */
  readonly guarantee?: JetStreamDeliveryGuarantee;
  /** The stable part of the message ids (the same on every resume). Unset: made from the job's name and the sink's uid; two sinks writing one stream with the same job name and uid need different ones. */
  readonly transactionIdPrefix?: string;
  /** Create the stream when it is missing. Unset: a missing stream is a StreamNotFoundError. */
  readonly createStream?: CreateStreamOptions | boolean;
  /**
   * What the sink does when the stream's duplicate_window is shorter than the checkpoint interval
   * plus timeout: 'fail' (DuplicateWindowTooShortError, unset) or 'warn' (a line in the log; a
   * replay older than the window is then made exact by `beyondDuplicateWindow`).
   */
  readonly duplicateWindowCheck?: 'fail' | 'warn';
  /**
   * A restored checkpoint older than the duplicate window: 'read-back' (unset) reads the ids the
   * sink already wrote to the stream since that checkpoint and publishes only the others;
   * 'refuse' fails with DuplicateWindowExceededError.
   */
  readonly beyondDuplicateWindow?: 'read-back' | 'refuse';
  /** Publications awaiting their acks at a time. Unset: 512. */
  readonly maxInFlight?: number;
  readonly commitRetry?: CommitRetryPolicy;
}
