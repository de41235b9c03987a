// `weir pipeline FILE` into Kafka (the librdkafka mock) in debezium-json, exactly-once: a bounded
// PostgreSQL snapshot of two tables, one routed and transformed; each sink table's rows go to the
// topic named by its id, keyed by the primary key, record for record the tables' rows transformed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres } from '../fixtures/postgres-server.ts';
import { connectPg } from '../fixtures/pg-cdc-workload.ts';
import { readTopic, startKafkaTest, stopKafkaTest, type KafkaTestEnv } from '../fixtures/kafka-topics.ts';
import { weir } from '../fixtures/weir-process.ts';
import { serverLines } from '../fixtures/pipeline-yaml.ts';

test('weir pipeline to Kafka: a topic per sink table, debezium-json values, primary-key keys, the transformed rows exactly', { timeout: 240_000 }, async () => {
  let env: KafkaTestEnv | undefined;
  const server = await startPostgres();
  const sql = await connectPg(server);
  try {
    env = await startKafkaTest('pipeline-kafka');
    await env.mock.createTopic('out.orders', 2);
    await env.mock.createTopic('public.customers', 1);
    await sql.query('CREATE TABLE orders (id int PRIMARY KEY, price numeric(8,2) NOT NULL, quantity int NOT NULL)');
    await sql.query('INSERT INTO orders SELECT i, i + 0.25, i % 5 FROM generate_series(1, 200) i');
    await sql.query('CREATE TABLE customers (id int PRIMARY KEY, name text)');
    await sql.query("INSERT INTO customers SELECT i, 'c' || i FROM generate_series(1, 20) i");
    const file = join(env.root, 'p.yaml');
    writeFileSync(
      file,
      `source:
  type: postgres
${serverLines('postgres', server)}
  tables: public.orders, public.customers
  slot.name: pipeline_kafka_test
  scan.startup.mode: snapshot
sink:
  type: kafka
  properties.bootstrap.servers: ${env.mock.bootstrap}
  partition.strategy: hash-by-key
route:
  - source-table: public.orders
    sink-table: out.orders
transform:
  - source-table: public.orders
    projection: id, price * quantity AS total
    filter: quantity > 0
pipeline:
  parallelism: 2
  execution.checkpointing.interval: 1 s
`,
    );
    const r = await weir(['pipeline', '-D', 'rest.port=0', file], {}, 180_000);
    assert.equal(r.code, 0, r.stderr);
    const orders = await readTopic(env.kafka, 'out.orders');
    const expected: string[] = [];
    for (let i = 1; i <= 200; i++) if (i % 5 > 0) expected.push(JSON.stringify({ key: JSON.stringify({ id: i }), after: { id: i, total: (((i * 100 + 25) * (i % 5)) / 100).toFixed(2) } }));
    const actual = orders.map((rec) => {
      const v = JSON.parse(rec.value) as { op: string; after: unknown; source: { db: string; table: string } };
      assert.equal(v.op, 'r');
      assert.deepEqual([v.source.db, v.source.table], ['out', 'orders']);
      return JSON.stringify({ key: rec.key, after: v.after });
    });
    assert.deepEqual(actual.sort(), expected.sort());
    const customers = (await readTopic(env.kafka, 'public.customers')).map((rec) => (JSON.parse(rec.value) as { after: unknown }).after);
    assert.deepEqual(customers.map((c) => JSON.stringify(c)).sort(), Array.from({ length: 20 }, (_, k) => JSON.stringify({ id: k + 1, name: `c${k + 1}` })).sort());
    process.stderr.write(`pipeline to Kafka: ${actual.length} orders and ${customers.length} customers compared\n`);
  } finally {
    await sql.end();
    await server.stop();
    if (env) await stopKafkaTest(env);
  }
});
