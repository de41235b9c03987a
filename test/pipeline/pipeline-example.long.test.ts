// Issue 33's must-show on the example pipeline as shipped (its routes, transforms, evolve), run
// by `weir pipeline` as a process: 5 injected failures, a SIGKILL and a resume from the retained
// checkpoint, 2 more failures, a stop with a savepoint and a resume at another
// parallelism, while the sharded tables take inserts, updates and deletes, one gains a column and
// a new shard is created. The target must equal the source merged and transformed, computed by
// SQL on the source, row for row (test/fixtures/pipeline-example-scenario.ts).
import { test } from 'node:test';
import { startMariaDb } from '../fixtures/mariadb-server.ts';
import { startPostgres } from '../fixtures/postgres-server.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { createShopTables, examplePipelineFile, mariaDbShop, mariaDbSourceBlock, postgresShop, postgresSinkBlock } from '../fixtures/pipeline-example.ts';
import { runExampleScenario } from '../fixtures/pipeline-example-scenario.ts';

const ORDERS = 3000;

test('the example pipeline, MariaDB into PostgreSQL, through failures, a SIGKILL, a savepoint and -p changed: the target equals the source merged and transformed, row for row', { timeout: 900_000 }, async () => {
  const root = makeTempDir('pipeline-example');
  const maria = await startMariaDb();
  const postgres = await startPostgres();
  const source = await mariaDbShop(maria);
  const target = await postgresShop(postgres);
  try {
    // Rows written before the ALTER are replayed after restores: the binlog describes its own rows.
    await source.query("SET GLOBAL binlog_row_metadata = 'FULL'");
    await createShopTables(source, ORDERS);
    await target.query('CREATE SCHEMA shop');
    const file = examplePipelineFile(root, mariaDbSourceBlock(maria), postgresSinkBlock(postgres, postgres.database));
    const summary = await runExampleScenario({
      root,
      file,
      source,
      target,
      orders: ORDERS,
      appliedChanges: async () => (await target.query('SELECT statements FROM public.weir_schema_changes ORDER BY applied_at')).map((r) => String(r['statements'])),
    });
    process.stderr.write(`example pipeline MariaDB -> PostgreSQL: ${summary}\n`);
  } finally {
    await source.end().catch(() => {});
    await target.end().catch(() => {});
    await postgres.stop();
    await maria.stop();
    removeDir(root);
  }
});
