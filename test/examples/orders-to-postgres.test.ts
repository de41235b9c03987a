// examples/orders-to-postgres.ts end to end, against a private MariaDB and a private PostgreSQL:
// with 5 injected failures (in the keyed per-customer operator: a CDC source's second reader has
// nothing to read once the snapshot is done, so a failure planned there would never strike) while
// the orders table changes, the PostgreSQL table becomes equal,
// row for row, to the GROUP BY computed by MariaDB over the source, and no prepared transaction
// is left.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/orders-to-postgres.ts', import.meta.url));

describe('examples/orders-to-postgres.ts', () => {
  let maria: MariaDbServer;
  let postgres: PostgresServer;
  let my: mysql.Connection;
  let client: pg.Client;
  let root: string;

  before(async () => {
    [maria, postgres] = await Promise.all([startMariaDb(), startPostgres()]);
    my = await mysql.createConnection(maria.connectionOptions());
    client = new pg.Client(postgres.connectionOptions());
    await client.connect();
    root = makeTempDir('orders-to-postgres');
  });
  after(async () => {
    await my?.end();
    await client?.end();
    await Promise.all([maria?.stop(), postgres?.stop()]);
    if (root) removeDir(root);
  });

  /** The source's aggregate, by MariaDB, and the sink's table, by PostgreSQL, as the same lines. */
  async function groupBy(): Promise<string[]> {
    const [rows] = await my.query('SELECT customer, COUNT(*) AS n, SUM(amount) AS total FROM shop.orders GROUP BY customer');
    return (rows as Array<{ customer: string; n: number; total: string }>).map((r) => `${r.customer} ${r.n} ${r.total}`).sort();
  }
  async function table(): Promise<string[]> {
    const { rows } = await client.query('SELECT customer, orders, total FROM customer_totals');
    return (rows as Array<{ customer: string; orders: string; total: string }>).map((r) => `${r.customer} ${r.orders} ${r.total}`).sort();
  }

  test('injected failures while orders change: the table equals the GROUP BY over the source', async () => {
    await my.query('CREATE DATABASE shop');
    await my.query('CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, customer VARCHAR(40) NOT NULL, amount DECIMAL(10,2) NOT NULL)');
    const values = Array.from({ length: 3000 }, (_, i) => `('customer-${i % 25}', ${((i * 7919) % 100000) / 100})`);
    await my.query(`INSERT INTO shop.orders (customer, amount) VALUES ${values.join(', ')}`);
    await client.query('CREATE TABLE customer_totals (customer text PRIMARY KEY, orders bigint NOT NULL, total numeric(14,2) NOT NULL)');

    const events = new JobEvents();
    const logLines: string[] = [];
    const c = postgres.connectionOptions();
    const job = await createJobMaster({
      job: EXAMPLE,
      args: ['--port', String(maria.port), '--password', maria.password, '--database', 'shop', '--pg-port', String(c.port), '--pg-user', c.user, '--pg-password', c.password, '--pg-database', c.database, '--checkpoint-interval', '150'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 20,
        'restart-strategy.fixed-delay.delay': '100 ms',
      },
      faults: { failures: 5, seed: 11, vertexNameContains: 'Per customer', minRecords: 200, maxRecords: 1500 },
      listener: events.listener,
      log: createLogger({ level: 'warn', write: (l) => void logLines.push(String(l)) }),
    });
    const running = job.run();

    // Changes while the job runs: updates (a customer's too), deletes (at the end, a customer's
    // last order), inserts.
    // Until all five failures have struck (each after up to 1500 records of one subtask), at least 60 rounds.
    for (let i = 0; i < 60 || (events.restarts.length < 5 && i < 2000); i++) {
      await my.query(`UPDATE shop.orders SET amount = amount + ${i % 7}.25 WHERE id % 53 = ${i % 53}`);
      await my.query(`UPDATE shop.orders SET customer = 'customer-${(i * 3) % 27}' WHERE id = ${100 + i * 11}`);
      await my.query(`DELETE FROM shop.orders WHERE id = ${2000 + ((i * 5) % 1000)}`);
      await my.query(`INSERT INTO shop.orders (customer, amount) VALUES ('customer-${i % 29}', ${i}.05)`);
    }
    await my.query("DELETE FROM shop.orders WHERE customer = 'customer-3'");
    const expected = await groupBy();

    // Equal once a checkpoint after the last change has completed and been committed.
    const ended = running.then(() => false);
    const equal = await Promise.race([ended, new Promise<boolean>((resolve) => {
      let checks = 0;
      let checking = false;
      events.onCompleted = () => {
        if (checking) return;
        checking = true;
        void table().then((t) => {
          checking = false;
          if (t.length === expected.length && t.every((row, i) => row === expected[i])) resolve(true);
          else if (++checks > 400) resolve(false);
        });
      };
    })]);
    events.onCompleted = undefined;
    await job.cancel();
    const result = await running;

    assert.ok(equal, `the table never equalled the GROUP BY\n${events.describe()}\n${logLines.slice(-15).join('\n')}`);
    assert.deepEqual(await table(), expected);
    assert.ok(!expected.some((r) => r.startsWith('customer-3 ')), 'a customer whose orders are all gone has no row');
    assert.equal(result.injectedFailures, 5, `injected failures that struck: ${events.describe()}`);
    assert.equal(events.restarts.length, 5, `a restart for each injected failure and nothing else: ${events.describe()}`);
    assert.deepEqual((await client.query('SELECT gid FROM pg_prepared_xacts')).rows, []);
  });
});
