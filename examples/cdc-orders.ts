// Change data capture: a MariaDB/MySQL `orders` table -> per customer, the number of orders and
// their total amount, kept up to date from the change stream -> one line per update in
// exactly-once files. Runs until cancelled (Ctrl-C), like any job on an unbounded source.
//
//   scripts/mariadb-for-examples.sh start          # a private MariaDB on 127.0.0.1:3307 with a demo `orders` table
//   weir run examples/cdc-orders.ts -- --port 3307 --output out/cdc-orders
//   scripts/mariadb-for-examples.sh sql "UPDATE orders SET amount = amount + 10 WHERE id <= 5"
//
// --host H --port N --user U --password P --database D   the server (defaults 127.0.0.1, 3306, root, '', test)
// --table T             the orders table (default orders): a `customer` column and a DECIMAL `amount`
// --output DIR          committed files (default out/cdc-orders), one line per update:
//                       customer<TAB>orders<TAB>total, e.g. `customer-7	50	24810.50`
// --server-id RANGE     replication server ids, one per parallel reader (default 5400-5415)
// --chunk-size N        snapshot rows per chunk (default the source's, 8096)
// --checkpoint-interval MS (default 1000): output becomes visible when a checkpoint completes
//
// The source reads the table (snapshot, without locks) and then follows the binlog. Every change
// record becomes deltas: its `after` image adds one order and its amount to after.customer, its
// `before` image takes them away from before.customer, so inserts, updates (also of the customer)
// and deletes all keep the sums right. Amounts are exact: DECIMAL values arrive as strings
// ('12.50') and are summed as integer cents.
import { defineJob } from 'weir-stream';
import { FileSink } from 'weir-stream/connectors/file';
import { MySqlCdcSource, type ChangeRecord, type RowImage } from 'weir-stream/connectors/mysql';

/** A change to one customer's figures. */
interface CustomerDelta {
  customer: string;
  orders: number;
  cents: bigint;
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
function deltas(change: ChangeRecord): CustomerDelta[] {
  const { before, after } = change;
  // An update that keeps the customer is one delta, so it makes one output line, not two.
  if (before && after && customerOf(before) === customerOf(after)) {
    const cents = toCents(String(after['amount'])) - toCents(String(before['amount']));
    return cents === 0n ? [] : [{ customer: customerOf(after), orders: 0, cents }];
  }
  const out: CustomerDelta[] = [];
  if (before) out.push({ customer: customerOf(before), orders: -1, cents: -toCents(String(before['amount'])) });
  if (after) out.push({ customer: customerOf(after), orders: 1, cents: toCents(String(after['amount'])) });
  return out;
}

export default defineJob((env, args) => {
  env.enableCheckpointing({ interval: args.getNumber('checkpoint-interval', 1000), mode: 'exactly-once' });

  const table = args.get('table', 'orders');
  const source = new MySqlCdcSource({
    host: args.get('host', '127.0.0.1'),
    port: args.getNumber('port', 3306),
    user: args.get('user', 'root'),
    password: args.get('password', ''),
    database: args.get('database', 'test'),
    tables: [table],
    serverId: args.get('server-id', '5400-5415'),
    ...(args.has('chunk-size') ? { chunkSize: args.getNumber('chunk-size', 8096) } : {}),
  });

  env
    .fromSource(source, { name: 'Source: orders', uid: 'orders-cdc' })
    .flatMap((change: ChangeRecord) => deltas(change), { name: 'Deltas' })
    .keyBy((d) => d.customer)
    .reduce((total, d) => ({ customer: total.customer, orders: total.orders + d.orders, cents: total.cents + d.cents }), { name: 'Per customer', uid: 'per-customer' })
    .map((t) => `${t.customer}\t${t.orders}\t${formatCents(t.cents)}`, { name: 'Format' })
    .sinkTo(new FileSink<string>(args.get('output', 'out/cdc-orders')), { name: 'Sink: files', uid: 'sink' });
});
