// NOT YET IN test:long: in 1 of 3 runs here the target stayed empty after the injected
// failures while checkpoints went on completing (a stall of the pipeline's database sink or of
// its held schema changes after a restore, not diagnosed yet); the other runs pass. Run with
// `npm run soak -- test/pipeline/pipeline-mariadb-postgres.soak.ts` until that is fixed.
//
// A pipeline from MariaDB into PostgreSQL with injected failures: shards orders_1 and orders_2
// merged into shop.orders by a route, a transform with a computed column and a filter, evolve.
// While the job runs (and fails and restores), the shards take inserts, updates (into and out of
// the filter) and deletes, orders_1 gains a column, and a third shard is created and filled. The
// PostgreSQL table must then equal the source shards merged and transformed, computed by SQL on
// MariaDB, row for row; the add.column is recorded applied once. The server writes
// binlog_row_metadata=FULL (the setting weir's errors name for this).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createJobMaster, createLogger } from '../../src/index.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import { PIPELINE_JOB_MODULE, pipelineJobArgs } from '../../src/pipeline/pipeline-job.ts';
import { startMariaDb } from '../fixtures/mariadb-server.ts';
import { startPostgres } from '../fixtures/postgres-server.ts';
import { connect } from '../fixtures/cdc-workload.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { serverLines } from '../fixtures/pipeline-yaml.ts';

type Row = Record<string, unknown>;

/** The sink table as the transform makes it, computed by MariaDB from the shards. */
async function expectedRows(sql: Awaited<ReturnType<typeof connect>>, shards: string[], withNote: Set<string>): Promise<string[]> {
  const parts = shards.map((s) => `SELECT '${s}' AS shard, id, status, price, quantity, ${withNote.has(s) ? 'note' : 'NULL'} AS note, price * quantity AS total FROM shop.${s} WHERE status <> 'test' AND quantity > 0`);
  const [rows] = await sql.query(parts.join(' UNION ALL '));
  return (rows as Row[]).map(line).sort();
}

function line(r: Row): string {
  const dec = (v: unknown) => (v === null ? 'null' : Number(v).toFixed(2));
  return [r['shard'], r['id'], r['status'], dec(r['price']), r['quantity'], r['note'] ?? 'null', dec(r['total'])].join('|');
}

test('a pipeline into PostgreSQL with 3 injected failures, a column added and a shard created mid-run: the target equals the source merged and transformed, row for row', { timeout: 300_000 }, async () => {
  const dir = makeTempDir('pipeline-pg');
  const maria = await startMariaDb();
  const postgres = await startPostgres();
  const sql = await connect(maria, 'mysql');
  const target = new pg.Client(postgres.connectionOptions());
  await target.connect();
  let master: JobMaster | undefined;
  try {
    // Rows written before the ALTER are replayed after a restore: the binlog describes its own
    // rows (without it, a restore before the ALTER cannot decode them: see the closing note of issue 33).
    await sql.query("SET GLOBAL binlog_row_metadata = 'FULL'");
    await sql.query('CREATE DATABASE shop');
    await sql.query('USE shop');
    for (const shard of ['orders_1', 'orders_2']) {
      await sql.query(`CREATE TABLE ${shard} (id INT PRIMARY KEY, status VARCHAR(10) NOT NULL, price DECIMAL(10,2) NOT NULL, quantity INT NOT NULL)`);
      await sql.query(`INSERT INTO ${shard} SELECT seq, IF(seq % 9 = 0, 'test', 'ok'), seq + 0.25, seq % 4 FROM seq_1_to_3000`);
    }
    await target.query('CREATE SCHEMA shop');
    const file = join(dir, 'pipeline.yaml');
    const text = `source:
  type: mariadb
${serverLines('mariadb', maria)}
  tables: shop.orders_\\d+
  server-id: 5400-5405
  scan.incremental.snapshot.chunk.size: 500
sink:
  type: postgres
${serverLines('postgres', postgres)}
route:
  - source-table: shop.orders_\\d+
    sink-table: shop.orders
transform:
  - source-table: shop.orders_\\d+
    projection: \\*, price * quantity AS total, __table_name__ AS shard
    filter: status <> 'test' AND quantity > 0
    primary-keys: shard, id
pipeline:
  name: pipeline into postgres
  parallelism: 2
  schema.change.behavior: evolve
  execution.checkpointing.interval: 300 ms
`;
    writeFileSync(file, text);
    const events = new JobEvents();
    master = await createJobMaster({
      job: PIPELINE_JOB_MODULE,
      args: pipelineJobArgs(file, text),
      config: {
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 30,
        'restart-strategy.fixed-delay.delay': '200 ms',
      },
      faults: { failures: 3, seed: 11, minRecords: 500, maxRecords: 2000, vertexNameContains: 'Source' },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    const result = master.run();

    // The sink tables exist (created from the catalog's schema) before the changes begin.
    await events.waitFor('two completed checkpoints', () => events.completed.length >= 2, 60_000);
    // Changes while the snapshot is read and after: inserts, updates into and out of the filter, deletes.
    for (let i = 1; i <= 300; i++) {
      const shard = i % 2 ? 'orders_1' : 'orders_2';
      const id = 1 + ((i * 37) % 3200);
      if (i % 7 === 0) await sql.query(`DELETE FROM ${shard} WHERE id = ?`, [id]);
      else await sql.query(`INSERT INTO ${shard} (id, status, price, quantity) VALUES (?, 'ok', ?, ?) ON DUPLICATE KEY UPDATE quantity = VALUES(quantity), status = IF(id % 5 = 0, 'test', 'ok')`, [id, 10 + i / 100, i % 5]);
      if (i === 150) await sql.query('ALTER TABLE orders_1 ADD COLUMN note VARCHAR(20)');
      if (i > 150 && i % 2) await sql.query('UPDATE orders_1 SET note = ? WHERE id = ?', [`n${i}`, id]);
      if (i === 200) {
        await sql.query('CREATE TABLE orders_3 (id INT PRIMARY KEY, status VARCHAR(10) NOT NULL, price DECIMAL(10,2) NOT NULL, quantity INT NOT NULL)');
        await sql.query("INSERT INTO orders_3 SELECT seq, 'ok', seq + 0.5, 1 + seq % 3 FROM seq_1_to_800");
      }
    }
    await sql.query("INSERT INTO orders_3 VALUES (100000, 'ok', 1.00, 1)");
    const expected = await expectedRows(sql, ['orders_1', 'orders_2', 'orders_3'], new Set(['orders_1']));

    // The target converges on the source: the last row inserted is there and every row equals.
    const actual = async () => {
      const r = await target.query<Row>('SELECT shard, id, status, price, quantity, note, total FROM shop.orders').catch(() => ({ rows: [] as Row[] }));
      return r.rows.map(line).sort();
    };
    const deadline = Date.now() + 60_000;
    let got = await actual();
    while (JSON.stringify(got) !== JSON.stringify(expected)) {
      if (Date.now() >= deadline) {
        const tables = await target.query<{ t: string }>("SELECT table_schema || '.' || table_name AS t FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')");
        const error = await target.query('SELECT shard, id FROM shop.orders LIMIT 1').then(() => 'none', (e: Error) => e.message);
        const g = new Set(got);
        const w = new Set(expected);
        const diff = `missing ${expected.filter((l) => !g.has(l)).slice(0, 5).join(' ; ')}; extra ${got.filter((l) => !w.has(l)).slice(0, 5).join(' ; ')}`;
        assert.fail(`the target did not reach the source's state in 120 s: ${got.length} rows, ${expected.length} expected (${diff}); tables ${tables.rows.map((r) => r.t).join(', ')}; query error: ${error}; restarts: ${JSON.stringify(events.restarts).slice(0, 1500)}`);
      }
      if (master.status === 'FAILED') assert.fail(`the job failed: ${(await result).error?.stack ?? ''}`);
      await events.waitFor('the next completed checkpoint', (() => { const n = events.completed.length; return () => events.completed.length > n; })(), 30_000);
      got = await actual();
    }
    assert.equal(got.length, expected.length);
    assert.equal(master.status, 'RUNNING', `the job ended: ${(await Promise.race([result, Promise.resolve(undefined)]))?.error?.message ?? ''}`);
    assert.ok(expected.length > 3000, `compared ${expected.length} rows`);
    assert.ok(events.restored.length >= 2, `restarts restored checkpoints: ${events.describe()}`);
    // The note column came either with the table's create (the catalog read after the ALTER) or as
    // an add.column from the log: never both, never twice (replays are skipped by id).
    const applied = await target.query<{ change_id: string; statements: string }>("SELECT change_id, statements FROM public.weir_schema_changes WHERE statements LIKE '%ADD COLUMN%note%'");
    const all = await target.query('SELECT change_id, statements FROM public.weir_schema_changes');
    const creates = all.rows.filter((r: { statements: string }) => /CREATE TABLE/.test(r.statements) && /"note"/.test(r.statements));
    assert.equal(applied.rows.length + creates.length, 1, `the note column made once: ${JSON.stringify(all.rows)}`);
    const columns = await target.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_schema = 'shop' AND table_name = 'orders' ORDER BY ordinal_position");
    // PostgreSQL adds a column last (it has no AFTER): the order depends on whether note came with the create or later.
    assert.deepEqual(columns.rows.map((c) => c.column_name).sort(), ['id', 'note', 'price', 'quantity', 'shard', 'status', 'total']);
    process.stderr.write(`pipeline into postgres: ${expected.length} rows equal; ${events.restored.length} restores; note column made once (${applied.rows.length === 1 ? 'add.column' : 'with the create.table'})\n`);
  } finally {
    await master?.cancel().catch(() => {});
    await target.end().catch(() => {});
    await sql.end().catch(() => {});
    await postgres.stop();
    await maria.stop();
    removeDir(dir);
  }
});
