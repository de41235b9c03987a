// Database to database, exactly once: the change stream of a MariaDB/MySQL `orders` table ->
// per customer, the number of orders and their total -> a PostgreSQL table that always equals
// `SELECT customer, COUNT(*), SUM(amount) FROM orders GROUP BY customer` as of the last completed
// checkpoint. Runs until cancelled (Ctrl-C), like any job on an unbounded source.
//
//   scripts/mariadb-for-examples.sh start              # a private MariaDB on 127.0.0.1:3307 with a demo `orders` table
//   scripts/postgres-for-examples.sh start             # a private PostgreSQL (it prints its port) with the target table
//   weir run examples/orders-to-postgres.ts -- --port 3307 --pg-port <port>
//   scripts/mariadb-for-examples.sh sql "UPDATE orders SET amount = amount + 10 WHERE id <= 5"
//   scripts/postgres-for-examples.sh compare           # the PostgreSQL table against the GROUP BY in MariaDB
//
// --host H --port N --user U --password P --database D   MariaDB (defaults 127.0.0.1, 3306, root, '', test)
// --table T                 the orders table (default orders): a `customer` column and a DECIMAL `amount`
// --pg-host H --pg-port N --pg-user U --pg-password P --pg-database D
//                           PostgreSQL (defaults 127.0.0.1, 5432, weir, weir, weir)
// --pg-table T              the target (default customer_totals): customer text PRIMARY KEY,
//                           orders bigint, total numeric(14,2)
// --server-id RANGE         replication server ids, one per parallel reader (default 5400-5415)
// --checkpoint-interval MS  (default 1000): a checkpoint's changes become visible in PostgreSQL
//                           together, when it completes
//
// The per-customer figures are keyed state, and every change of them is a change record for the
// sink in changelog mode: 'c' for a customer's first order, 'u' when the figures change, 'd'
// when the customer's last order is gone (the GROUP BY has no row for it either). The sink writes
// one PostgreSQL transaction per checkpoint and subtask, prepares it when the checkpoint is
// taken and commits it when the checkpoint completes; after a failure the job restarts from the
// last completed checkpoint, commits what it had prepared and rolls back everything else.
import {
  defineJob,
  ValueStateDescriptor,
  type Collector,
  type KeyedContext,
  type KeyedProcessFunction,
  type RuntimeContext,
  type ValueState,
} from 'weir-stream';
import { MySqlCdcSource, type ChangeRecord, type RowImage } from 'weir-stream/connectors/mysql';
import { PostgresSink } from 'weir-stream/connectors/postgres';

/** A change to one customer's figures. */
export interface CustomerDelta {
  customer: string;
  orders: number;
  cents: bigint;
}

/** A row of the target table. */
export interface CustomerTotal {
  customer: string;
  orders: number;
  total: string;
}

/** What the sink applies in changelog mode: Debezium's shape, as the CDC sources emit it. */
export interface TotalChange {
  op: 'c' | 'u' | 'd';
  before: CustomerTotal | null;
  after: CustomerTotal | null;
}

/** '12.5' / '-0.07' / '3' -> 1250n / -7n / 300n; more than two decimals would not be exact in cents. */
function toCents(decimal: string): bigint {
  const m = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(decimal);
  if (!m) throw new TypeError(`amount '${decimal}' is not a DECIMAL with at most 2 decimals`);
  const cents = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0'));
  return m[1] === '-' ? -cents : cents;
}

/** 1250n -> '12.50', -7n -> '-0.07'. */
function formatCents(cents: bigint): string {
  const sign = cents < 0n ? '-' : '';
  const abs = cents < 0n ? -cents : cents;
  return `${sign}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

function customerOf(row: RowImage): string {
  return String(row['customer']);
}

/** What one change does to the per-customer figures: the before image out, the after image in. */
export function deltas(change: ChangeRecord): CustomerDelta[] {
  const { before, after } = change;
  if (before && after && customerOf(before) === customerOf(after)) {
    const cents = toCents(String(after['amount'])) - toCents(String(before['amount']));
    return cents === 0n ? [] : [{ customer: customerOf(after), orders: 0, cents }];
  }
  const out: CustomerDelta[] = [];
  if (before) out.push({ customer: customerOf(before), orders: -1, cents: -toCents(String(before['amount'])) });
  if (after) out.push({ customer: customerOf(after), orders: 1, cents: toCents(String(after['amount'])) });
  return out;
}

/** A customer's figures in keyed state; each change of them becomes a change record of its row. */
export class CustomerTotals implements KeyedProcessFunction<string, CustomerDelta, TotalChange> {
  #figures!: ValueState<{ orders: number; cents: bigint }>;

  open(ctx: RuntimeContext): void {
    this.#figures = ctx.getState(new ValueStateDescriptor<{ orders: number; cents: bigint }>('figures'));
  }

  processElement(d: CustomerDelta, _ctx: KeyedContext<string>, out: Collector<TotalChange>): void {
    const old = this.#figures.value();
    const orders = (old?.orders ?? 0) + d.orders;
    const cents = (old?.cents ?? 0n) + d.cents;
    const row = (f: { orders: number; cents: bigint }): CustomerTotal => ({ customer: d.customer, orders: f.orders, total: formatCents(f.cents) });
    if (orders === 0) {
      // No orders left: no row in the GROUP BY, none in the table.
      this.#figures.clear();
      if (old) out.collect({ op: 'd', before: row(old), after: null });
      return;
    }
    this.#figures.update({ orders, cents });
    out.collect({ op: old ? 'u' : 'c', before: old ? row(old) : null, after: row({ orders, cents }) });
  }
}

export default defineJob((env, args) => {
  env.enableCheckpointing({ interval: args.getNumber('checkpoint-interval', 1000), mode: 'exactly-once' });

  const source = new MySqlCdcSource({
    host: args.get('host', '127.0.0.1'),
    port: args.getNumber('port', 3306),
    user: args.get('user', 'root'),
    password: args.get('password', ''),
    database: args.get('database', 'test'),
    tables: [args.get('table', 'orders')],
    serverId: args.get('server-id', '5400-5415'),
  });
  const sink = new PostgresSink<TotalChange>({
    connection: {
      host: args.get('pg-host', '127.0.0.1'),
      port: args.getNumber('pg-port', 5432),
      user: args.get('pg-user', 'weir'),
      password: args.get('pg-password', 'weir'),
      database: args.get('pg-database', 'weir'),
    },
    table: args.get('pg-table', 'customer_totals'),
    mode: 'changelog',
    key: ['customer'],
  });

  env
    .fromSource(source, { name: 'Source: orders', uid: 'orders-cdc' })
    .flatMap((change: ChangeRecord) => deltas(change), { name: 'Deltas' })
    .keyBy((d) => d.customer)
    .process(() => new CustomerTotals(), { name: 'Per customer', uid: 'per-customer' })
    .sinkTo(sink, { name: 'Sink: postgres', uid: 'customer-totals' });
});
