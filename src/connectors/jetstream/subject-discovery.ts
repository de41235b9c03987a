import type { JetStreamManager, StreamInfo } from '@nats-io/jetstream';
import type { JetStreamSourceOptions } from './jetstream-source-options.ts';

/** The subject filters a source reads: the configured ones, or the stream's own subjects. */
export function subjectFilters(o: JetStreamSourceOptions<unknown>, info: StreamInfo): readonly string[] {
  const filters = o.subjects ?? info.config.subjects ?? [];
  if (filters.length === 0) throw new TypeError(`JetStreamSource: stream '${o.stream}' has no subjects of its own (a mirror or a source stream): name the subjects to read`);
  return filters;
}

/** The stream sequence a fresh start begins at (also where subjects found later are read from). */
export function startSequence(o: JetStreamSourceOptions<unknown>, info: StreamInfo): number {
  const start = o.startingPosition ?? 'earliest';
  return start === 'earliest' ? Math.max(1, info.state.first_seq) : start === 'latest' ? info.state.last_seq + 1 : start.sequence;
}

/**
 * The concrete subjects holding messages that match the filters, sorted (the server counts them
 * per filter): with splitPerSubject each one is a split of its own.
 */
export async function subjectsWithMessages(jsm: JetStreamManager, stream: string, filters: readonly string[]): Promise<string[]> {
  const found = new Set<string>();
  for (const filter of filters) {
    const info = await jsm.streams.info(stream, { subjects_filter: filter });
    for (const subject of Object.keys(info.state.subjects ?? {})) found.add(subject);
  }
  return [...found].sort();
}
