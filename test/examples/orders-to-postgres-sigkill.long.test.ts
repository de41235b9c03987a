// examples/orders-to-postgres.ts under `weir run`, SIGKILLed while the orders table changes and
// resumed from its newest retained checkpoint: the PostgreSQL table becomes equal, row for row,
// to the GROUP BY computed by MariaDB over the source, and no prepared transaction is left (the
// killed run's included: the resumed run commits what the checkpoint holds and rolls back the
// rest of its prefix). The killed run has restarted after 5 injected failures before the kill. The same pipeline with MySqlSink into MariaDB: the same equality, and
// XA RECOVER empty.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { killAndResume } from '../fixtures/kill-and-resume.ts';
import { completedCheckpoints, spawnWeir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { startOrdersServers, type OrdersServers } from '../fixtures/orders-pipeline.ts';

describe('the orders pipeline under weir run, SIGKILLed and resumed', () => {
  let servers: OrdersServers;
  let root: string;
  before(async () => {
    servers = await startOrdersServers();
    root = makeTempDir('orders-to-postgres-sigkill');
  });
  after(async () => {
    await servers?.stop();
    if (root) removeDir(root);
  });

  for (const index of [0, 1]) {
    test(`${['PostgresSink (the example)', 'MySqlSink'][index]}: the table equals the GROUP BY, no prepared transaction left`, { timeout: 240_000 }, async () => {
      const target = servers.targets[index]!;
      await servers.createOrders();
      await target.create();
      const checkpointDir = join(root, String(index), 'checkpoints');
      // The first run also fails 5 times inside (restarting from its own checkpoints), the resumed one
      // not. Each failure after 2000-8000 of its subtask's records: with the default range (up to
      // 50000) the five took over 2000 rounds of changes, past the wait below on a loaded CI machine.
      const faults = ['--inject-failures', '5', '--seed', '11', '--inject-failures-in', 'Per customer', '--inject-failures-after', '2000-8000'];
      const start = (from: string | undefined): WeirProcess =>
        spawnWeir(
          ['run', target.job, '-p', '2', '--checkpoint-dir', checkpointDir, '-D', 'rest.port=0', ...(from ? ['--from-savepoint', from] : faults), '--', ...servers.sourceArgs(), ...target.args(), '--checkpoint-interval', '200'],
          weirEnv(root),
        );

      let changing = true;
      let rounds = 0;
      const changes = (async () => {
        for (let i = 0; changing && i < 100_000; i++, rounds++) await servers.changeRound(i);
      })();
      try {
        const latest = await killAndResume({
          start,
          checkpointDir,
          kills: 1,
          // After the 5 injected failures and their restarts, with checkpoints completing (their
          // transactions committed) while orders change: the kill leaves the transactions of the
          // checkpoint in flight behind.
          beforeKill: (run) =>
            run.waitFor(
              '5 restarts, then 3 completed checkpoints',
              (r) => {
                const fifth = r.lines.filter((l) => l.includes('restarting (attempt'))[4];
                return fifth !== undefined && r.lines.slice(r.lines.indexOf(fifth)).filter((l) => l.includes('"msg":"completed checkpoint ')).length >= 3;
              },
              120_000,
            ),
        });
        const last = start(latest.dir);
        try {
          await last.waitFor('3 checkpoints after the restore', (r) => completedCheckpoints(r).filter((id) => id > latest.id).length >= 3, 90_000);
          changing = false;
          await changes;
          await servers.my.query("DELETE FROM shop.orders WHERE customer = 'customer-3'");
          const expected = await servers.groupBy();
          // The table changes only when a checkpoint completes: look after each one.
          let seen: string[] = [];
          let checking = false;
          await last
            .waitFor(
              'the table to equal the GROUP BY',
              (r) => {
                if (!checking && r.log.at(-1)?.msg?.toString().startsWith('completed checkpoint')) {
                  checking = true;
                  void target.table().then((t) => {
                    seen = t;
                    checking = false;
                  });
                }
                return seen.length === expected.length && seen.every((row, i) => row === expected[i]);
              },
              90_000,
            )
            .catch(async (e: unknown) => {
              // Stuck or wrong: say which, with the rows that differ.
              const now = await target.table();
              const missing = expected.filter((row) => !now.includes(row));
              const extra = now.filter((row) => !expected.includes(row));
              const after = completedCheckpoints(last).filter((id) => id > latest.id);
              throw new Error(`checkpoints completed after the restore: ${after.join(', ') || 'none'}; rows missing ${JSON.stringify(missing)}, rows not expected ${JSON.stringify(extra)}`, { cause: e });
            });
          assert.ok(rounds > 0, 'no change happened while the job ran');
          assert.deepEqual(await target.table(), expected);
          assert.ok(!expected.some((r) => r.startsWith('customer-3 ')), 'a customer whose orders are all gone has no row');
          last.child.kill('SIGINT');
          assert.equal((await last.exited).signal, null, 'Ctrl-C cancels the job');
        } finally {
          last.kill();
        }
        assert.deepEqual(await target.prepared(), [], 'no prepared transaction left');
      } finally {
        changing = false;
        await changes;
      }
    });
  }
});
