// examples/orders-to-postgres.ts as its README runs it (`weir run`, parallelism 2 on two
// TaskManagers), against a private MariaDB and PostgreSQL while the orders table keeps changing:
// a first run is SIGKILLed after a few checkpoints (its prepared transactions are left behind), a
// second run resumes from its newest checkpoint and ends with a stop-with-savepoint. (The same
// pipeline with 5 injected failures, in one process: orders-to-postgres.test.ts.) The
// PostgreSQL table must then equal the GROUP BY MariaDB computes over the source, row for row, and
// no prepared transaction may be left, the killed run's included.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { killAndResume } from '../fixtures/kill-and-resume.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { completedCheckpoints, spawnWeir, weir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/orders-to-postgres.ts', import.meta.url));

describe('examples/orders-to-postgres.ts under weir run', { timeout: 400_000 }, () => {
  let maria: MariaDbServer;
  let postgres: PostgresServer;
  let my: mysql.Connection;
  let client: pg.Client;
  let root: string;

  before(async () => {
    [maria, postgres] = await Promise.all([startMariaDb(), startPostgres()]);
    my = await mysql.createConnection(maria.connectionOptions());
    client = new pg.Client(postgres.connectionOptions());
    client.on('error', () => {});
    await client.connect();
    root = makeTempDir('orders-to-postgres-sigkill');
  });
  after(async () => {
    await my?.end();
    await client?.end().catch(() => {});
    await Promise.all([maria?.stop(), postgres?.stop()]);
    if (root) removeDir(root);
  });

  async function groupBy(): Promise<string[]> {
    const [rows] = await my.query('SELECT customer, COUNT(*) AS n, SUM(amount) AS total FROM shop.orders GROUP BY customer');
    return (rows as Array<{ customer: string; n: number; total: string }>).map((r) => `${r.customer} ${r.n} ${r.total}`).sort();
  }
  async function table(): Promise<string[]> {
    const { rows } = await client.query('SELECT customer, orders, total FROM customer_totals');
    return (rows as Array<{ customer: string; orders: string; total: string }>).map((r) => `${r.customer} ${r.orders} ${r.total}`).sort();
  }
  const prepared = async () => ((await client.query('SELECT gid FROM pg_prepared_xacts')).rows as Array<{ gid: string }>).map((r) => r.gid);

  /** One round of changes: updates (a customer's too), a delete, an insert. */
  async function changeRound(i: number): Promise<void> {
    await my.query(`UPDATE shop.orders SET amount = amount + ${i % 7}.25 WHERE id % 53 = ${i % 53}`);
    await my.query(`UPDATE shop.orders SET customer = 'customer-${(i * 3) % 27}' WHERE id = ${100 + ((i * 11) % 2800)}`);
    await my.query(`DELETE FROM shop.orders WHERE id = ${2000 + ((i * 5) % 1000)}`);
    await my.query(`INSERT INTO shop.orders (customer, amount) VALUES ('customer-${i % 29}', ${i % 1000}.05)`);
  }

  function start(checkpointDir: string, extra: readonly string[]): WeirProcess {
    const c = postgres.connectionOptions();
    return spawnWeir(
      [
        'run', EXAMPLE, '-p', '2', '--task-managers', '2', '--checkpoint-dir', checkpointDir, '-D', 'rest.port=0',
        '-D', 'restart-strategy.type=fixed-delay', '-D', 'restart-strategy.fixed-delay.attempts=20', '-D', 'restart-strategy.fixed-delay.delay=100 ms',
        ...extra,
        '--', '--port', String(maria.port), '--password', maria.password, '--database', 'shop',
        '--pg-port', String(c.port), '--pg-user', c.user, '--pg-password', c.password, '--pg-database', c.database, '--checkpoint-interval', '200',
      ],
      weirEnv(root),
    );
  }
  test('a SIGKILL and a resume while orders change, then a stop with a savepoint: the table equals the GROUP BY, nothing left prepared', async (t) => {
    await my.query('CREATE DATABASE shop');
    await my.query('CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, customer VARCHAR(40) NOT NULL, amount DECIMAL(10,2) NOT NULL)');
    const values = Array.from({ length: 3000 }, (_, i) => `('customer-${i % 25}', ${((i * 7919) % 100000) / 100})`);
    await my.query(`INSERT INTO shop.orders (customer, amount) VALUES ${values.join(', ')}`);
    await client.query('CREATE TABLE customer_totals (customer text PRIMARY KEY, orders bigint NOT NULL, total numeric(14,2) NOT NULL)');

    // Changes all along, until the last run has taken over.
    let changing = true;
    let rounds = 0;
    const changes = (async () => {
      while (changing && rounds < 5000) await changeRound(rounds++);
    })();

    const checkpointDir = join(root, 'checkpoints');
    let leftByKill: string[] = [];
    let roundsAtKill = 0;
    const latest = await killAndResume({
      start: () => start(checkpointDir, []),
      checkpointDir,
      kills: 1,
      beforeKill: async (run) => {
        await run.waitFor('five completed checkpoints', (r) => completedCheckpoints(r).length >= 5, 120_000);
        roundsAtKill = rounds;
      },
      afterKill: async () => {
        leftByKill = await prepared();
      },
    });
    t.diagnostic(`first run SIGKILLed after ${roundsAtKill} change rounds; ${leftByKill.length} prepared transactions left by it`);
    assert.ok(roundsAtKill > 0, 'the orders changed while the first run ran');

    const last = start(checkpointDir, ['--from-savepoint', latest.dir]);
    try {
      await last.waitFor(`the restore of checkpoint ${latest.id}`, (r) => r.lines.some((l) => l.includes(`restored from checkpoint ${latest.id}`)), 60_000);
      const resumedAt = rounds;
      await last.waitFor('two checkpoints of the resumed run', (r) => completedCheckpoints(r).length >= 2, 60_000);
      changing = false;
      await changes;
      assert.ok(rounds > resumedAt, 'the orders changed while the resumed run ran');
      await my.query("DELETE FROM shop.orders WHERE customer = 'customer-3'");
      const expected = await groupBy();

      // Equal once a checkpoint after the last change has completed: checked at each completed checkpoint.
      let equal = false;
      for (let n = completedCheckpoints(last).length; !equal && n < completedCheckpoints(last).length + 200; n++) {
        await last.waitFor(`checkpoint ${n + 1} of the resumed run`, (r) => completedCheckpoints(r).length > n, 60_000);
        const now = await table();
        equal = now.length === expected.length && now.every((row, i) => row === expected[i]);
      }
      assert.ok(equal, `the table never equalled the GROUP BY:\n${last.tail()}`);
      assert.ok(!expected.some((r) => r.startsWith('customer-3 ')), 'a customer whose orders are all gone has no row');

      const [jobId, jm] = await Promise.all([last.jobId(), last.jobManager()]);
      const stopped = await weir(['stop', jobId, '--savepoint', join(root, 'savepoints'), '--jobmanager', jm], weirEnv(root), 120_000);
      assert.equal(stopped.code, 0, `weir stop failed: ${stopped.stderr}`);
      assert.equal(await last.finished(60_000), 0, last.tail());
      assert.deepEqual(await table(), expected);
      assert.deepEqual(await prepared(), [], 'no prepared transaction is left, the killed run\'s included');
    } finally {
      changing = false;
      await changes.catch(() => {});
      last.kill();
    }
  });
});
