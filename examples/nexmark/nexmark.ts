// Nexmark on weir: the Nexmark source and one or more of its queries, each to a sink of its own.
//
//   weir run examples/nexmark/nexmark.ts -p 2 -- --queries q5,q7 --events 1000000
//
// --queries LIST        comma-separated: q0 q1 q2 q3 q4 q5 q7 q8 q9 q11 q12 q14 q15 q16 q17 q18 q19 q20 q21 q22 (default q0)
// --events N            events in all (default 1,000,000; 0: unbounded)
// --rate R              events per second of wall-clock time (default: as fast as possible)
// --event-rate R        events per second of event time (Nexmark's firstEventRate, default 10,000)
// --ooo-group G         out-of-order groups of G events (default 1: in order)
// --prob-delayed P      the share of events held back and sent late (Nexmark's probDelayedEvent, default 0)
// --delay-sec S         the longest such delay, seconds of event time (occasionalDelaySec, default 3)
// --checkpoint-interval MS  exactly-once checkpoints (default 10000; 0: none)
// --q12-window MS      q12's processing-time window (default 10000); windows still open when a
//                       bounded input ends are dropped, as in Flink
// --output DIR          each query's lines to committed files in DIR/<query> (exactly-once)
// --collect-id ID       each query's lines to CollectSink(`ID-<query>`) (tests)
// without --output and --collect-id: each query's lines are counted and the counts printed
import { defineJob, type DataStream, type Sink, type SinkContext, type SinkWriter } from 'weir-stream';
import { CollectSink } from 'weir-stream/connectors/collect';
import { FileSink } from 'weir-stream/connectors/file';
import { Nexmark, type NexmarkOptions } from 'weir-stream/connectors/nexmark';
import { QUERIES } from './queries.ts';

export function nexmarkOptions(args: { getNumber(name: string, fallback: number): number }): NexmarkOptions {
  const events = args.getNumber('events', 1_000_000);
  const rate = args.getNumber('rate', 0);
  return {
    ...(events > 0 ? { events } : {}),
    ...(rate > 0 ? { ratePerSecond: rate } : {}),
    firstEventRate: args.getNumber('event-rate', 10_000),
    outOfOrderGroupSize: args.getNumber('ooo-group', 1),
    probDelayedEvent: args.getNumber('prob-delayed', 0),
    occasionalDelaySec: args.getNumber('delay-sec', 3),
  };
}

export function queryNames(list: string): string[] {
  const names = list.split(',').map((q) => q.trim()).filter((q) => q !== '');
  for (const q of names) if (!(q in QUERIES)) throw new TypeError(`--queries: unknown query '${q}' (have: ${Object.keys(QUERIES).join(', ')})`);
  return names;
}

/** Counts a query's lines per subtask and prints the count when the input ends. */
class CountingSink implements Sink<string> {
  readonly #query: string;
  constructor(query: string) {
    this.#query = query;
  }
  createWriter(ctx: SinkContext): SinkWriter<string> {
    let n = 0;
    return {
      write: () => void n++,
      close: () => console.log(`${this.#query} subtask ${ctx.subtaskIndex}: ${n} lines`),
    };
  }
}

export default defineJob((env, args) => {
  const interval = args.getNumber('checkpoint-interval', 10_000);
  if (interval > 0) env.enableCheckpointing({ interval, mode: 'exactly-once' });
  const options = nexmarkOptions(args);
  const events: DataStream<import('weir-stream/connectors/nexmark').NexmarkEvent> = env.fromSource(Nexmark.source(options), { name: 'Source: nexmark', uid: 'source', watermarks: Nexmark.watermarks(options) });
  const output = args.get('output');
  const collectId = args.get('collect-id');
  for (const q of queryNames(args.get('queries', 'q0'))) {
    const lines = QUERIES[q]!(events, { q12WindowMs: args.getNumber('q12-window', 10_000) });
    const sink = output ? new FileSink<string>(`${output}/${q}`) : collectId ? new CollectSink<string>(`${collectId}-${q}`) : new CountingSink(q);
    lines.sinkTo(sink, { name: `Sink: ${q}`, uid: `sink-${q}` });
  }
});
