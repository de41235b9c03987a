// A checked source block becomes the options of weir's CDC sources, which accept them and select
// the same tables as the file's patterns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveCdcOptions, tableMatches } from '../../src/connectors/mysql/mysql-cdc-options.ts';
import { pgTableMatches, resolvePostgresCdcOptions } from '../../src/connectors/postgres/postgres-cdc-options.ts';
import { checkPipelineText } from '../../src/pipeline/pipeline-validator.ts';
import { mySqlCdcOptionsOf, postgresCdcOptionsOf } from '../../src/pipeline/source-options.ts';

const definition = (source: string) => {
  const r = checkPipelineText('p.yaml', `source:\n${source}sink:\n  type: print\n`);
  assert.deepEqual(r.problems.map((p) => p.message), []);
  return r.definition!;
};

test('MySQL/MariaDB: the Flink CDC keys become MySqlCdcOptions; tables (minus tables.exclude) select the same ids', () => {
  const d = definition(`  type: mariadb
  hostname: db.local
  port: "3307"
  username: weir
  password: 123
  tables: shop.\\.*, audit.log_\\d+
  tables.exclude: shop.tmp_\\.*
  server-id: 5400 - 5403
  scan.startup.mode: specific-offset
  scan.startup.specific-offset.file: mysql-bin.000003
  scan.startup.specific-offset.pos: 4
  scan.incremental.snapshot.chunk.size: 1000
  connect.timeout: 5 s
`);
  const o = mySqlCdcOptionsOf(d.source);
  assert.equal(o.host, 'db.local');
  assert.equal(o.port, 3307);
  assert.equal(o.user, 'weir');
  assert.equal(o.password, '123');
  assert.equal(o.database, 'shop');
  assert.deepEqual(o.startup, { mode: 'specific', file: 'mysql-bin.000003', pos: 4 });
  assert.equal(o.chunkSize, 1000);
  assert.equal(o.connectTimeoutMs, 5000);
  assert.equal(o.includeSchemaChanges, true);
  assert.equal(o.scanNewlyAddedTables, true, 'a pipeline follows tables created later unless told not to');
  const resolved = resolveCdcOptions(o);
  assert.deepEqual(resolved.serverIds, { first: 5400, last: 5403 });
  const selected = (id: string) => tableMatches(resolved, id.split('.')[1]!, id.split('.')[0]!);
  assert.ok(selected('shop.orders_1') && selected('SHOP.Customers') && selected('audit.log_7'));
  assert.ok(!selected('shop.tmp_x') && !selected('audit.log_x') && !selected('other.orders'));
});

test('PostgreSQL: database.schema.table names the database; startup modes map to weir\'s; the slot is kept', () => {
  const d = definition(`  type: postgres
  hostname: pg
  username: u
  tables: shop.public.orders_\\d+, shop.sales.\\.*
  slot.name: shop_slot
  scan.startup.mode: snapshot
  scan.lsn-commit.checkpoints-num-delay: 1
  scan.newly-added-table.enabled: false
`);
  const o = resolvePostgresCdcOptions(postgresCdcOptionsOf(d.source));
  assert.equal(o.database, 'shop');
  assert.equal(o.port, 5432);
  assert.equal(o.slotName, 'shop_slot');
  assert.deepEqual(o.startup, { mode: 'snapshot-only' });
  assert.equal(o.lsnCommitCheckpointsDelay, 1);
  assert.equal(o.scanNewlyAddedTables, false, "Flink CDC's key turns tables added later off");
  assert.ok(pgTableMatches(o.tables, 'public', 'orders_12') && pgTableMatches(o.tables, 'sales', 'anything'));
  assert.ok(!pgTableMatches(o.tables, 'public', 'customers'));
});
