// A bounded pipeline (scan.startup.mode: snapshot) into each database sink, with checkpoints too
// rare to happen during the run: every sink table's create.table, and all its rows after it, are
// held behind the change when the input ends. The job must FINISH (no restart) with the tables
// created once (weir_schema_changes) and holding the source's rows merged and transformed,
// computed by SQL on the source, row for row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { PIPELINE_JOB_MODULE, pipelineJobArgs } from '../../src/pipeline/pipeline-job.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { connect } from '../fixtures/cdc-workload.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { serverLines } from '../fixtures/pipeline-yaml.ts';

type Row = Record<string, unknown>;

function line(r: Row): string {
  const dec = (v: unknown) => (v === null ? 'null' : Number(v).toFixed(2));
  return [r['shard'], r['id'], r['status'], dec(r['price']), r['quantity'], dec(r['total'])].join('|');
}

function pipelineFile(maria: MariaDbServer, sink: string): string {
  return `source:
  type: mariadb
${serverLines('mariadb', maria)}
  tables: shop.\\.*
  server-id: 5400-5405
  scan.startup.mode: snapshot
  scan.incremental.snapshot.chunk.size: 300
${sink}
route:
  - source-table: shop.orders_\\d+
    sink-table: analytics.orders
  - source-table: shop.customers
    sink-table: analytics.customers
transform:
  - source-table: shop.orders_\\d+
    projection: \\*, price * quantity AS total, __table_name__ AS shard
    filter: status <> 'test' AND quantity > 0
    primary-keys: shard, id
pipeline:
  name: bounded pipeline into a database
  parallelism: 2
  schema.change.behavior: evolve
  execution.checkpointing.interval: 1 h
`;
}

test('a bounded pipeline into PostgreSQL and into MariaDB finishes with its held create.tables applied and every row written', { timeout: 300_000 }, async () => {
  const dir = makeTempDir('pipeline-bounded-db');
  const maria = await startMariaDb();
  let postgres: PostgresServer | undefined;
  const sql = await connect(maria, 'mysql');
  let target: pg.Client | undefined;
  try {
    postgres = await startPostgres();
    target = new pg.Client(postgres.connectionOptions());
    await target.connect();
    await sql.query('CREATE DATABASE shop');
    await sql.query('USE shop');
    for (const shard of ['orders_1', 'orders_2']) {
      await sql.query(`CREATE TABLE ${shard} (id INT PRIMARY KEY, status VARCHAR(10) NOT NULL, price DECIMAL(10,2) NOT NULL, quantity INT NOT NULL)`);
      await sql.query(`INSERT INTO ${shard} SELECT seq, IF(seq % 9 = 0, 'test', 'ok'), seq + 0.25, seq % 4 FROM seq_1_to_1500`);
    }
    await sql.query('CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(20))');
    await sql.query("INSERT INTO customers VALUES (1, 'ann'), (2, 'bob')");
    await sql.query('CREATE DATABASE analytics');
    await target.query('CREATE SCHEMA analytics');
    const [source] = await sql.query(
      "SELECT * FROM (SELECT 'orders_1' AS shard, id, status, price, quantity, price * quantity AS total FROM shop.orders_1 UNION ALL SELECT 'orders_2', id, status, price, quantity, price * quantity FROM shop.orders_2) o WHERE status <> 'test' AND quantity > 0",
    );
    const expected = (source as Row[]).map(line).sort();

    const sinks = {
      postgres: `sink:
  type: postgres
${serverLines('postgres', postgres)}`,
      mariadb: `sink:
  type: mysql
${serverLines('mariadb', maria)}
  database: analytics`,
    };
    for (const [name, sink] of Object.entries(sinks)) {
      const file = join(dir, `${name}.yaml`);
      const text = pipelineFile(maria, sink);
      writeFileSync(file, text);
      const events = new JobEvents();
      const master = await createJobMaster({
        job: PIPELINE_JOB_MODULE,
        args: pipelineJobArgs(file, text),
        config: { 'execution.checkpointing.dir': join(dir, `checkpoints-${name}`), 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 3, 'restart-strategy.fixed-delay.delay': '200 ms' },
        listener: events.listener,
        log: createLogger({ level: 'error', write: () => {} }),
      });
      const result = await master.run();
      assert.equal(result.status, 'FINISHED', `${name}: ${result.error?.message ?? ''}; restarts: ${JSON.stringify(events.restarts)}`);
      assert.deepEqual(events.restarts, [], `${name}: no restart`);

      const rows = async (query: string): Promise<Row[]> => (name === 'postgres' ? (await target!.query<Row>(query)).rows : ((await sql.query(query))[0] as Row[]));
      const orders = await rows('SELECT shard, id, status, price, quantity, total FROM analytics.orders');
      assert.deepEqual(orders.map(line).sort(), expected, `${name}: analytics.orders equals the shards merged and transformed`);
      const clients = await rows('SELECT id, name FROM analytics.customers ORDER BY id');
      assert.deepEqual(clients.map((r) => `${r['id']}|${r['name']}`), ['1|ann', '2|bob']);
      const changes = await rows(`SELECT change_id, statements FROM ${name === 'postgres' ? 'public' : 'analytics'}.weir_schema_changes`);
      const creates = changes.filter((c) => /CREATE TABLE/i.test(String(c['statements'])));
      assert.equal(creates.length, 2, `${name}: each sink table created once: ${JSON.stringify(changes)}`);
      process.stderr.write(`bounded pipeline into ${name}: FINISHED, ${orders.length} rows equal, ${changes.length} schema changes recorded\n`);
    }
  } finally {
    await target?.end().catch(() => {});
    await sql.end().catch(() => {});
    await postgres?.stop();
    await maria.stop();
    removeDir(dir);
  }
});
