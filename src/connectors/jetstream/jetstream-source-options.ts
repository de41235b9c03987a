import type { OutputTag } from '../../api/output-tag.ts';
import type { JetStreamConnectionOptions } from './jetstream-connection.ts';
import type { JetStreamUnreadableMessage } from './unreadable-message.ts';

/** Where a fresh start begins reading (a restore goes on from the checkpoint's sequences). */
export type JetStreamStartingPosition = 'earliest' | 'latest' | { readonly sequence: number };

/** What the deserializer learns about a message besides its payload. */
export interface JetStreamMessageInfo {
  readonly stream: string;
  readonly subject: string;
  readonly sequence: number;
  /** The time the stream stored it, ms since the epoch. */
  readonly timestamp: number;
  readonly headers: ReadonlyMap<string, string>;
}

export interface JetStreamSourceOptions<T> {
  readonly connection: JetStreamConnectionOptions;
  readonly stream: string;
  /** Subject filters inside the stream, one split each (unless splitPerSubject). Unset: the stream's own subjects. */
  readonly subjects?: readonly string[];
  /**
   * One split per concrete subject matching the filters instead of one per filter, so that a
   * wildcard's subjects spread over the readers. Unbounded: subjects that appear later are found
   * every subjectDiscoveryIntervalMs and read from the job's start sequence on, without a restart,
   * their positions kept in checkpoints like the others'. Bounded: the subjects at the start.
   */
  readonly splitPerSubject?: boolean;
  /** With splitPerSubject, unbounded: how often to look for new subjects (ms). Unset: 10 s. */
  readonly subjectDiscoveryIntervalMs?: number;
  /** A message as a record; a throw fails the job with JetStreamDeserializationError naming stream and sequence (or see deserializationErrorOutput). Unset: the payload as UTF-8 text. */
  readonly deserializer?: (data: Uint8Array, info: JetStreamMessageInfo) => T;
  /**
   * Messages the deserializer throws on go to this side output, `fromSource(...).getSideOutput(tag)`,
   * instead of failing the job: each with its stream, subject, sequence, payload and the reason.
   */
  readonly deserializationErrorOutput?: OutputTag<JetStreamUnreadableMessage>;
  /** Unset: 'earliest'. */
  readonly startingPosition?: JetStreamStartingPosition;
  /** Stop at the stream's last sequence as it was at the job's start (the bound is kept in checkpoints). Unset: unbounded. */
  readonly bounded?: boolean;
  /** A header whose value (ms since the epoch) is the record's event time instead of the stream's timestamp. */
  readonly eventTimeHeader?: string;
  /** Messages buffered per reader before it stops pulling. Unset: 4096. */
  readonly bufferSize?: number;
}
