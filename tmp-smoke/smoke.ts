import { writeFileSync } from 'node:fs';
import { startMariaDb } from '../test/fixtures/mariadb-server.ts';
import { connect } from '../test/fixtures/cdc-workload.ts';
import { spawnWeir } from '../test/fixtures/weir-process.ts';

const server = await startMariaDb();
const sql = await connect(server, 'mysql');
await sql.query('CREATE DATABASE shop');
for (const n of [1, 2]) {
  await sql.query(`CREATE TABLE shop.orders_${n} (id INT PRIMARY KEY, status VARCHAR(10) NOT NULL, price DECIMAL(10,2) NOT NULL, quantity INT NOT NULL)`);
  await sql.query(`INSERT INTO shop.orders_${n} VALUES (1, 'ok', 2.50, 2), (2, 'test', 1.00, 1), (3, 'ok', 10.00, 0)`);
}
const yaml = `source:
  type: mariadb
  hostname: 127.0.0.1
  port: ${server.port}
  username: root
  password: '${server.password}'
  tables: shop.orders_\\d+
  server-id: 5400-5403
sink:
  type: print
route:
  - source-table: shop.orders_\\d+
    sink-table: shop.orders
transform:
  - source-table: shop.orders_\\d+
    projection: \\*, price * quantity AS total, __table_name__ AS shard
    filter: status <> 'test' AND quantity > 0
    primary-keys: shard, id
pipeline:
  name: smoke
  parallelism: 1
  execution.checkpointing.interval: 1 s
`;
writeFileSync('tmp-smoke/p.yaml', yaml);
const p = spawnWeir(['pipeline', '-D', 'rest.port=0', 'tmp-smoke/p.yaml']);
try {
  await p.waitFor('rows', (r) => (r.stdout.split('\n').filter((l) => l.includes('"op"')).length >= 4 ? true : undefined), 60_000);
  await sql.query('USE shop'); await sql.query(`ALTER TABLE orders_1 ADD COLUMN note VARCHAR(20)`);
  await sql.query(`INSERT INTO shop.orders_1 VALUES (4, 'ok', 3.00, 3, 'hi')`);
  await sql.query(`UPDATE shop.orders_2 SET quantity = 0 WHERE id = 1`);
  await p.waitFor('more', (r) => (r.stdout.includes('"hi"') && r.stdout.includes('"op":"d"') ? true : undefined), 30_000);
} catch (e) {
  console.log('FAILED', e);
} finally {
  console.log(p.stdout);
  console.log(p.tail());
  p.kill();
  await sql.end();
  await server.stop();
}
