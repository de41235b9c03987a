import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager, type StreamInfo } from '@nats-io/jetstream';
import { StreamNotFoundError } from './stream-not-found-error.ts';

/** How a sink may create its output stream when it is missing (only when asked: a typo in a name should not become a stream). */
export interface CreateStreamOptions {
  /** The subjects the stream captures. Unset: `<stream>.>`. */
  readonly subjects?: readonly string[];
  /** duplicate_window in ms. Unset: the server's default (2 minutes). */
  readonly duplicateWindowMs?: number;
  /** Replicas (1..5). Unset: 1. */
  readonly replicas?: number;
}

/** The stream's info, or a StreamNotFoundError naming it and the servers; created first if `create` says so. */
export async function lookUpStream(jsm: JetStreamManager, stream: string, servers: string, create?: CreateStreamOptions): Promise<StreamInfo> {
  try {
    return await jsm.streams.info(stream);
  } catch (e) {
    if (!(e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound)) throw e;
  }
  if (!create) throw new StreamNotFoundError(stream, servers, 'create it (nats stream add), correct the name, or set createStream on the sink');
  try {
    return await jsm.streams.add({
      name: stream,
      subjects: [...(create.subjects ?? [`${stream}.>`])],
      num_replicas: create.replicas ?? 1,
      ...(create.duplicateWindowMs !== undefined ? { duplicate_window: create.duplicateWindowMs * 1_000_000 } : {}),
    });
  } catch (e) {
    // Another subtask created it at the same moment.
    if (e instanceof JetStreamApiError && /already in use|exists/i.test(e.message)) return await jsm.streams.info(stream);
    throw e;
  }
}

/** The stream's duplicate window in ms. */
export function duplicateWindowMs(info: StreamInfo): number {
  return Math.floor(Number(info.config.duplicate_window ?? 0) / 1_000_000);
}
