// The example pipeline's file with another sink and with another source (issue 33: "the same
// pipeline file with sink: type: mysql and with a PostgreSQL source: equal results"): its routes,
// transforms and pipeline block as shipped, through the same failures, SIGKILL, savepoint and -p
// change as pipeline-example.long.test.ts; each target compared with the source's SQL, row for row.
import { test } from 'node:test';
import { startMariaDb } from '../fixtures/mariadb-server.ts';
import { startPostgres } from '../fixtures/postgres-server.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { createShopTables, examplePipelineFile, mariaDbShop, mariaDbSourceBlock, mysqlSinkBlock, postgresShop, postgresSinkBlock, postgresSourceBlock } from '../fixtures/pipeline-example.ts';
import { runExampleScenario } from '../fixtures/pipeline-example-scenario.ts';

const ORDERS = 3000;

test('the example pipeline with sink type mysql (MariaDB into MariaDB): equal results', { timeout: 900_000 }, async () => {
  const root = makeTempDir('pipeline-example-mysql');
  const maria = await startMariaDb();
  const targetServer = await startMariaDb({ serverId: 2 });
  const source = await mariaDbShop(maria);
  const target = await mariaDbShop(targetServer);
  try {
    await source.query("SET GLOBAL binlog_row_metadata = 'FULL'");
    await createShopTables(source, ORDERS);
    await target.query('CREATE DATABASE shop');
    const file = examplePipelineFile(root, mariaDbSourceBlock(maria), mysqlSinkBlock(targetServer));
    const summary = await runExampleScenario({
      root,
      file,
      source,
      target,
      orders: ORDERS,
      appliedChanges: async () => {
        const [where] = await target.query("SELECT table_schema AS db FROM information_schema.tables WHERE table_name = 'weir_schema_changes'");
        return (await target.query(`SELECT statements FROM \`${String(where!['db'])}\`.weir_schema_changes ORDER BY applied_at`)).map((r) => String(r['statements']));
      },
    });
    process.stderr.write(`example pipeline MariaDB -> MariaDB (sink type mysql): ${summary}\n`);
  } finally {
    await source.end().catch(() => {});
    await target.end().catch(() => {});
    await targetServer.stop();
    await maria.stop();
    removeDir(root);
  }
});

test('the example pipeline with a PostgreSQL source (into PostgreSQL): equal results', { timeout: 900_000 }, async () => {
  const root = makeTempDir('pipeline-example-pg');
  const postgres = await startPostgres();
  const source = await postgresShop(postgres);
  let target: Awaited<ReturnType<typeof postgresShop>> | undefined;
  try {
    await createShopTables(source, ORDERS);
    await source.query('CREATE DATABASE analytics');
    target = await postgresShop(postgres, 'analytics');
    await target.query('CREATE SCHEMA shop');
    const file = examplePipelineFile(root, postgresSourceBlock(postgres, 'shop_example'), postgresSinkBlock(postgres, 'analytics'));
    const t = target;
    const summary = await runExampleScenario({
      root,
      file,
      source,
      target: t,
      orders: ORDERS,
      appliedChanges: async () => (await t.query('SELECT statements FROM public.weir_schema_changes ORDER BY applied_at')).map((r) => String(r['statements'])),
    });
    process.stderr.write(`example pipeline PostgreSQL -> PostgreSQL: ${summary}\n`);
  } finally {
    await source.end().catch(() => {});
    await target?.end().catch(() => {});
    await postgres.stop();
    removeDir(root);
  }
});
