import { jetstreamManager } from '@nats-io/jetstream';
import type { Boundedness, Source, SourceReader, SourceReaderContext } from '../../api/source.ts';
import { connectJetStream, describeServers } from './jetstream-connection.ts';
import type { JetStreamSourceOptions } from './jetstream-source-options.ts';
import { JetStreamSourceReader } from './jetstream-source-reader.ts';
import type { JetStreamSplit } from './jetstream-split.ts';
import { lookUpStream } from './stream-lookup.ts';

/**
 * Reads subjects of a NATS JetStream stream: one split per subject filter, spread over the
 * readers. Each reader reads its splits through ordered consumers (no acks: the position lives in
 * weir's checkpoints, and explicit acks would stall at max pending and redeliver after their ack
 * wait), from the checkpoint's sequence on a restore. Event time is the message's stream
 * timestamp (or a header), with watermarks per split.
 */
export class JetStreamSource<T = string> implements Source<T, JetStreamSplit> {
  readonly boundedness: Boundedness;
  readonly #o: JetStreamSourceOptions<T>;

  constructor(options: JetStreamSourceOptions<T>) {
    if (!options.stream) throw new TypeError('JetStreamSource: stream must be given');
    this.#o = options;
    this.boundedness = options.bounded ? 'bounded' : 'unbounded';
  }

  async createSplits(): Promise<JetStreamSplit[]> {
    const o = this.#o;
    const connection = await connectJetStream(o.connection, `weir source ${o.stream} enumerator`);
    try {
      const info = await lookUpStream(await jetstreamManager(connection), o.stream, describeServers(o.connection));
      const filters = o.subjects ?? info.config.subjects ?? [];
      if (filters.length === 0) throw new TypeError(`JetStreamSource: stream '${o.stream}' has no subjects of its own (a mirror or a source stream): name the subjects to read`);
      const start = o.startingPosition ?? 'earliest';
      const nextSequence = start === 'earliest' ? Math.max(1, info.state.first_seq) : start === 'latest' ? info.state.last_seq + 1 : start.sequence;
      return filters.map((filter) => (o.bounded ? { filter, nextSequence, endSequence: info.state.last_seq } : { filter, nextSequence }));
    } finally {
      await connection.close();
    }
  }

  createReader(ctx: SourceReaderContext): SourceReader<T, JetStreamSplit> {
    return new JetStreamSourceReader(this.#o, ctx);
  }
}
