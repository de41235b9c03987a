import { jetstreamManager } from '@nats-io/jetstream';
import type { Boundedness, EnumeratorContext, Source, SourceReader, SourceReaderContext, SplitEnumerator } from '../../api/source.ts';
import { connectJetStream, describeServers } from './jetstream-connection.ts';
import type { JetStreamSourceOptions } from './jetstream-source-options.ts';
import { JetStreamSourceReader } from './jetstream-source-reader.ts';
import { JetStreamSplitEnumerator, type JetStreamEnumeratorState } from './jetstream-split-enumerator.ts';
import type { JetStreamSplit } from './jetstream-split.ts';
import { lookUpStream } from './stream-lookup.ts';
import { startSequence, subjectFilters, subjectsWithMessages } from './subject-discovery.ts';

/** How often an unbounded source with splitPerSubject looks for new subjects, unless told. */
const DEFAULT_DISCOVERY_INTERVAL_MS = 10_000;

/**
 * Reads subjects of a NATS JetStream stream: one split per subject filter (or per subject, with
 * splitPerSubject), spread over the readers. Each reader reads its splits through ordered
 * consumers (no acks: the position lives in weir's checkpoints, and explicit acks would stall at
 * max pending and redeliver after their ack wait), from the checkpoint's sequence on a restore.
 * Event time is the message's stream timestamp (or a header), with watermarks per split. An
 * unbounded source with splitPerSubject has a split enumerator that finds subjects appearing later.
 */
export class JetStreamSource<T = string> implements Source<T, JetStreamSplit, JetStreamEnumeratorState | undefined> {
  readonly boundedness: Boundedness;
  readonly #o: JetStreamSourceOptions<T>;
  /** Present exactly for discovery (the JobMaster looks for it): the splits come from it instead of createSplits. */
  declare createEnumerator?: (ctx: EnumeratorContext<JetStreamSplit>, restored: JetStreamEnumeratorState | undefined) => SplitEnumerator<JetStreamSplit, JetStreamEnumeratorState | undefined>;

  constructor(options: JetStreamSourceOptions<T>) {
    if (!options.stream) throw new TypeError('JetStreamSource: stream must be given');
    this.#o = options;
    this.boundedness = options.bounded ? 'bounded' : 'unbounded';
    const interval = options.subjectDiscoveryIntervalMs ?? DEFAULT_DISCOVERY_INTERVAL_MS;
    if (options.subjectDiscoveryIntervalMs !== undefined && !options.splitPerSubject) throw new TypeError('JetStreamSource: subjectDiscoveryIntervalMs needs splitPerSubject (a subject filter already reads the subjects that appear later)');
    if (!Number.isFinite(interval) || interval <= 0) throw new TypeError(`JetStreamSource: subjectDiscoveryIntervalMs must be a positive number of ms (without discovery the subjects that appear later would never be read), not ${interval}`);
    if (options.splitPerSubject && !options.bounded) {
      this.createEnumerator = (ctx, restored) => new JetStreamSplitEnumerator(this.#o as JetStreamSourceOptions<unknown>, ctx, interval, restored);
    }
  }

  async createSplits(): Promise<JetStreamSplit[]> {
    const o = this.#o as JetStreamSourceOptions<unknown>;
    const connection = await connectJetStream(o.connection, `weir source ${o.stream} enumerator`);
    try {
      const jsm = await jetstreamManager(connection);
      const info = await lookUpStream(jsm, o.stream, describeServers(o.connection));
      const filters = subjectFilters(o, info);
      const nextSequence = startSequence(o, info);
      const splitFilters = o.splitPerSubject ? await subjectsWithMessages(jsm, o.stream, filters) : filters;
      return splitFilters.map((filter) => (o.bounded ? { filter, nextSequence, endSequence: info.state.last_seq } : { filter, nextSequence }));
    } finally {
      await connection.close();
    }
  }

  createReader(ctx: SourceReaderContext): SourceReader<T, JetStreamSplit> {
    return new JetStreamSourceReader(this.#o, ctx);
  }
}
