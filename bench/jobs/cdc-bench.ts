// The job the `cdc` benchmark runs: MySqlCdcSource -> a sink that only counts change records by
// op. A module of its own because worker TaskManagers load the job by path.
//
// Job arguments:
//   --host H --port N --user U --password P --database D   the server (defaults 127.0.0.1, 3306, root, '', test)
//   --table T            the table to capture (default orders)
//   --chunk-size N       rows per snapshot chunk (default: the source's, 8096)
//   --startup S          initial (default) or FILE:POS, to follow the binlog from there without a snapshot
//   --channel NAME       each sink subtask reports its counts on BroadcastChannel NAME
//   --checkpoint-interval MS  enable exactly-once checkpoints (off unless given)
import { BroadcastChannel } from 'node:worker_threads';
import { defineJob } from '../../src/index.ts';
import type { Sink, SinkContext, SinkWriter } from '../../src/index.ts';
import { MySqlCdcSource, type ChangeRecord, type StartupMode } from '../../src/connectors/mysql/index.ts';

/** A sink subtask's counts so far, by change op; sent on the job's BroadcastChannel. */
export interface CdcSinkReport {
  readonly subtask: number;
  readonly r: number;
  readonly c: number;
  readonly u: number;
  readonly d: number;
}

/**
 * Counts records by op and reports the counts once per turn of the event loop in which records
 * arrived. A BroadcastChannel reaches the benchmark's thread from worker TaskManagers as well as
 * from an in-thread one, and reporting per turn (not per record) keeps its cost out of the
 * figures while the last report still follows the last record by one turn.
 */
export class CountingChangeSink implements Sink<Pick<ChangeRecord, 'op'>> {
  readonly #channel: string | undefined;

  constructor(channel: string | undefined) {
    this.#channel = channel;
  }

  createWriter(ctx: SinkContext): SinkWriter<Pick<ChangeRecord, 'op'>> {
    const counts = { r: 0, c: 0, u: 0, d: 0, ddl: 0 };
    const channel = this.#channel === undefined ? undefined : new BroadcastChannel(this.#channel);
    // Must not keep a worker thread or the benchmark alive.
    channel?.unref();
    let scheduled = false;
    const report = () => {
      scheduled = false;
      channel?.postMessage({ subtask: ctx.subtaskIndex, ...counts } satisfies CdcSinkReport);
    };
    const end = () => {
      if (channel === undefined) return;
      report();
      channel.close();
    };
    return {
      write: (r) => {
        counts[r.op]++;
        if (!scheduled && channel !== undefined) {
          scheduled = true;
          setImmediate(report);
        }
      },
      close: end,
      abort: end,
    };
  }
}

function startupMode(text: string): StartupMode {
  if (text === 'initial') return { mode: 'initial' };
  const colon = text.lastIndexOf(':');
  if (colon <= 0) throw new TypeError(`--startup must be initial or FILE:POS, got '${text}'`);
  return { mode: 'specific', file: text.slice(0, colon), pos: Number(text.slice(colon + 1)) };
}

export default defineJob((env, args) => {
  const interval = args.get('checkpoint-interval');
  if (interval !== undefined) env.enableCheckpointing({ interval: Number(interval), mode: 'exactly-once' });
  const source = new MySqlCdcSource({
    host: args.get('host', '127.0.0.1'),
    port: args.getNumber('port', 3306),
    user: args.get('user', 'root'),
    password: args.get('password', ''),
    database: args.get('database', 'test'),
    tables: [args.get('table', 'orders')],
    startup: startupMode(args.get('startup', 'initial')),
    ...(args.has('chunk-size') ? { chunkSize: args.getNumber('chunk-size', 8096) } : {}),
  });
  env
    .fromSource(source, { name: 'Source: cdc', uid: 'cdc' })
    .sinkTo(new CountingChangeSink(args.get('channel')), { name: 'Sink: count', uid: 'sink' });
});
