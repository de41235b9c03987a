// Issue 33's must-show on the example pipeline as shipped (its routes, transforms, evolve), run
// by `weir pipeline` as a process: 5 injected failures, a SIGKILL and a resume from the retained
// checkpoint, 2 more failures, a stop with a savepoint and a resume at another parallelism, while
// the sharded tables take inserts, updates and deletes, one gains a column and a new shard is
// created. The target must equal the source merged and transformed, computed by SQL on the
// source, row for row (test/fixtures/pipeline-example-scenario.ts). Then the same file with
// `sink: type: mysql` and with a PostgreSQL source: equal results.
import { test } from 'node:test';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { createShopTables, examplePipelineFile, mariaDbShop, mariaDbSourceBlock, mysqlSinkBlock, postgresShop, postgresSinkBlock, postgresSourceBlock, type ShopDatabase } from '../fixtures/pipeline-example.ts';
import { runExampleScenario } from '../fixtures/pipeline-example-scenario.ts';

const ORDERS = 3000;

interface Case {
  readonly source: ShopDatabase;
  readonly target: ShopDatabase;
  readonly sourceBlock: Record<string, unknown>;
  readonly sinkBlock: Record<string, unknown>;
  /** Where the target records the schema changes it applied. */
  readonly ledger: string;
}

/** Makes the shop on the case's source, runs the scenario, prints its summary; `stop` ends what the case started. */
async function runCase(label: string, make: () => Promise<Case>, stop: () => Promise<void>): Promise<void> {
  const root = makeTempDir('pipeline-example');
  let c: Case | undefined;
  try {
    c = await make();
    await createShopTables(c.source, ORDERS);
    const target = c.target;
    const summary = await runExampleScenario({
      root,
      file: examplePipelineFile(root, c.sourceBlock, c.sinkBlock),
      source: c.source,
      target,
      orders: ORDERS,
      appliedChanges: async () => (await target.query(`SELECT statements FROM ${c!.ledger} ORDER BY applied_at`)).map((r) => String(r['statements'])),
    });
    process.stderr.write(`example pipeline ${label}: ${summary}\n`);
  } finally {
    await c?.source.end().catch(() => {});
    await c?.target.end().catch(() => {});
    await stop();
    removeDir(root);
  }
}

test('the example pipeline, MariaDB into PostgreSQL, through failures, a SIGKILL, a savepoint and -p changed: the target equals the source merged and transformed, row for row', { timeout: 900_000 }, async () => {
  let maria: MariaDbServer | undefined;
  let postgres: PostgresServer | undefined;
  await runCase('MariaDB -> PostgreSQL', async () => {
    maria = await startMariaDb();
    postgres = await startPostgres();
    const source = await mariaDbShop(maria);
    // Rows written before the ALTER are replayed after restores: the binlog describes its own rows.
    await source.query("SET GLOBAL binlog_row_metadata = 'FULL'");
    const target = await postgresShop(postgres);
    await target.query('CREATE SCHEMA shop');
    return { source, target, sourceBlock: mariaDbSourceBlock(maria), sinkBlock: postgresSinkBlock(postgres, postgres.database), ledger: 'public.weir_schema_changes' };
  }, async () => {
    await postgres?.stop();
    await maria?.stop();
  });
});

test('the example pipeline with sink type mysql (MariaDB into MariaDB): equal results', { timeout: 900_000 }, async () => {
  let maria: MariaDbServer | undefined;
  let targetServer: MariaDbServer | undefined;
  await runCase('MariaDB -> MariaDB (sink type mysql)', async () => {
    maria = await startMariaDb();
    targetServer = await startMariaDb({ serverId: 2 });
    const source = await mariaDbShop(maria);
    await source.query("SET GLOBAL binlog_row_metadata = 'FULL'");
    const target = await mariaDbShop(targetServer);
    await target.query('CREATE DATABASE shop');
    // The sink block's database (shop) is where weir_schema_changes lives.
    return { source, target, sourceBlock: mariaDbSourceBlock(maria), sinkBlock: mysqlSinkBlock(targetServer), ledger: 'shop.weir_schema_changes' };
  }, async () => {
    await targetServer?.stop();
    await maria?.stop();
  });
});

test('the example pipeline with a PostgreSQL source (into PostgreSQL): equal results', { timeout: 900_000 }, async () => {
  let postgres: PostgresServer | undefined;
  await runCase('PostgreSQL -> PostgreSQL', async () => {
    postgres = await startPostgres();
    const source = await postgresShop(postgres);
    await source.query('CREATE DATABASE analytics');
    const target = await postgresShop(postgres, 'analytics');
    await target.query('CREATE SCHEMA shop');
    return { source, target, sourceBlock: postgresSourceBlock(postgres, 'shop_example'), sinkBlock: postgresSinkBlock(postgres, 'analytics'), ledger: 'public.weir_schema_changes' };
  }, async () => {
    await postgres?.stop();
  });
});
