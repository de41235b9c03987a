// The job the `cdc` benchmark runs on PostgreSQL: PostgresCdcSource -> a sink that only counts
// change records by op (cdc-bench.ts's CountingChangeSink). A module of its own because worker
// TaskManagers load the job by path.
//
// Job arguments:
//   --host H --port N --user U --password P --database D   the server (defaults 127.0.0.1, 5432, postgres, '', postgres)
//   --table T            the table to capture, schema.table (default public.orders)
//   --slot S --publication P   the source's slot and publication (default weir_bench, weir_bench_pub)
//   --chunk-size N       rows per snapshot chunk (default: the source's, 8096)
//   --startup S          initial (default) or committed-offset (the slot's position, no snapshot)
//   --channel NAME       each sink subtask reports its counts on BroadcastChannel NAME
//   --checkpoint-interval MS  enable exactly-once checkpoints (off unless given)
import { defineJob } from '../../src/index.ts';
import { PostgresCdcSource } from '../../src/connectors/postgres/index.ts';
import { CountingChangeSink } from './cdc-bench.ts';

export default defineJob((env, args) => {
  const interval = args.get('checkpoint-interval');
  if (interval !== undefined) env.enableCheckpointing({ interval: Number(interval), mode: 'exactly-once' });
  const startup = args.get('startup', 'initial');
  if (startup !== 'initial' && startup !== 'committed-offset') throw new TypeError(`--startup must be initial or committed-offset, got '${startup}'`);
  const source = new PostgresCdcSource({
    host: args.get('host', '127.0.0.1'),
    port: args.getNumber('port', 5432),
    user: args.get('user', 'postgres'),
    password: args.get('password', ''),
    database: args.get('database', 'postgres'),
    tables: [args.get('table', 'public.orders')],
    slotName: args.get('slot', 'weir_bench'),
    publicationName: args.get('publication', 'weir_bench_pub'),
    startup: { mode: startup },
    ...(args.has('chunk-size') ? { chunkSize: args.getNumber('chunk-size', 8096) } : {}),
    warn: () => {},
  });
  env
    .fromSource(source, { name: 'Source: cdc', uid: 'cdc' })
    .sinkTo(new CountingChangeSink(args.get('channel')), { name: 'Sink: count', uid: 'sink' });
});
