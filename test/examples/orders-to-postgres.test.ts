// examples/orders-to-postgres.ts end to end, against a private MariaDB and a private PostgreSQL:
// with 5 injected failures (in the keyed per-customer operator: a CDC source's second reader has
// nothing to read once the snapshot is done, so a failure planned there would never strike) while
// the orders table changes, the PostgreSQL table becomes equal, row for row, to the GROUP BY
// computed by MariaDB over the source, and no prepared transaction is left. The same pipeline with
// MySqlSink into MariaDB (test/fixtures/jobs/orders-to-mysql.ts): XA RECOVER empty.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { startOrdersServers, type OrdersServers } from '../fixtures/orders-pipeline.ts';

describe('examples/orders-to-postgres.ts', () => {
  let servers: OrdersServers;
  let root: string;
  before(async () => {
    servers = await startOrdersServers();
    root = makeTempDir('orders-to-postgres');
  });
  after(async () => {
    await servers?.stop();
    if (root) removeDir(root);
  });

  for (const index of [0, 1]) {
    test(`${['PostgresSink (the example)', 'MySqlSink'][index]}: injected failures while orders change: the table equals the GROUP BY over the source`, async () => {
      const target = servers.targets[index]!;
      await servers.createOrders();
      await target.create();
      const events = new JobEvents();
      const logLines: string[] = [];
      const job = await createJobMaster({
        job: target.job,
        args: [...servers.sourceArgs(), ...target.args(), '--checkpoint-interval', '150'],
        config: {
          'parallelism.default': 2,
          'execution.checkpointing.dir': join(root, String(index), 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 20,
          'restart-strategy.fixed-delay.delay': '100 ms',
        },
        faults: { failures: 5, seed: 11, vertexNameContains: 'Per customer', minRecords: 200, maxRecords: 1500 },
        listener: events.listener,
        log: createLogger({ level: 'warn', write: (l) => void logLines.push(String(l)) }),
      });
      const running = job.run();

      // Until all five failures have struck (each after up to 1500 records of one subtask), at least 60 rounds.
      for (let i = 0; i < 60 || (events.restarts.length < 5 && i < 2000); i++) await servers.changeRound(i);
      await servers.my.query("DELETE FROM shop.orders WHERE customer = 'customer-3'");
      const expected = await servers.groupBy();

      // Equal once a checkpoint after the last change has completed and been committed.
      const ended = running.then(() => false);
      const equal = await Promise.race([
        ended,
        new Promise<boolean>((resolve) => {
          let checks = 0;
          let checking = false;
          events.onCompleted = () => {
            if (checking) return;
            checking = true;
            void target.table().then((t) => {
              checking = false;
              if (t.length === expected.length && t.every((row, i) => row === expected[i])) resolve(true);
              else if (++checks > 400) resolve(false);
            });
          };
        }),
      ]);
      events.onCompleted = undefined;
      await job.cancel();
      const result = await running;

      assert.ok(equal, `the table never equalled the GROUP BY\n${events.describe()}\n${logLines.slice(-15).join('\n')}`);
      assert.deepEqual(await target.table(), expected);
      assert.ok(!expected.some((r) => r.startsWith('customer-3 ')), 'a customer whose orders are all gone has no row');
      assert.equal(result.injectedFailures, 5, `injected failures that struck: ${events.describe()}`);
      assert.equal(events.restarts.length, 5, `a restart for each injected failure and nothing else: ${events.describe()}`);
      assert.deepEqual(await target.prepared(), [], 'no prepared transaction left');
    });
  }
});
