// The job the `nexmark` benchmark runs: the Nexmark source and one query (examples/nexmark) into a
// sink that counts lines; each sink subtask writes sink-<query>-<subtask>.json to --report-dir
// when its input ends. Same arguments as examples/nexmark/nexmark.ts (--queries, --events,
// --checkpoint-interval, ...), plus --report-dir.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineJob, type Sink, type SinkContext, type SinkWriter } from '../../src/index.ts';
import { Nexmark } from '../../src/connectors/nexmark/index.ts';
import { nexmarkOptions, queryNames } from '../../examples/nexmark/nexmark.ts';
import { QUERIES } from '../../examples/nexmark/queries.ts';

export interface NexmarkSinkReport {
  readonly query: string;
  readonly subtask: number;
  readonly lines: number;
}

class CountingSink implements Sink<string> {
  readonly #query: string;
  readonly #dir: string;
  constructor(query: string, dir: string) {
    this.#query = query;
    this.#dir = dir;
  }
  createWriter(ctx: SinkContext): SinkWriter<string> {
    let lines = 0;
    return {
      write: () => void lines++,
      close: () => {
        const report: NexmarkSinkReport = { query: this.#query, subtask: ctx.subtaskIndex, lines };
        writeFileSync(join(this.#dir, `sink-${this.#query}-${ctx.subtaskIndex}.json`), JSON.stringify(report));
      },
    };
  }
}

export default defineJob((env, args) => {
  const interval = args.getNumber('checkpoint-interval', 10_000);
  if (interval > 0) env.enableCheckpointing({ interval, mode: 'exactly-once' });
  const options = nexmarkOptions(args);
  const events = env.fromSource(Nexmark.source(options), { name: 'Source: nexmark', uid: 'source', watermarks: Nexmark.watermarks(options) });
  const dir = args.get('report-dir');
  if (!dir) throw new TypeError('--report-dir is required');
  for (const q of queryNames(args.get('queries', 'q0'))) QUERIES[q]!(events).sinkTo(new CountingSink(q, dir), { name: `Sink: ${q}`, uid: `sink-${q}` });
});
