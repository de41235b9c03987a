// A table created and filled while a pipeline runs, fault-free, from each source dialect: its rows
// must reach the transform after its schema, so the job never restarts (before the fix, the
// source's snapshot of a table it found without the log describing it first, PostgreSQL's
// unpublished tables always, MySQL's made by a CREATE TABLE ... LIKE or found by the catalog look
// before the log reader reached the CREATE, sent rows the transform had no schema for:
// UnknownSourceTableError and one restart). The committed
// output of the files sink, replayed by key, must equal the source tables merged and transformed,
// row for row, with the new table's create.table before its first row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
interface Source {
  /** A table made like another (MySQL: CREATE TABLE ... LIKE, which the binlog's DDL parser cannot follow). */
  readonly createLike: (table: string, like: string) => string;
  /** Runs a statement on the source. */
  exec(statement: string): Promise<void>;
  /** Rows of a query, as a driver gives them. */
  rows(query: string): Promise<Row[]>;
  readonly block: string;
  stop(): Promise<void>;
}

const line = (r: Row) => [r['shard'], r['id'], Number(r['price']).toFixed(2), r['quantity'], Number(r['total']).toFixed(2)].join('|');

/** The sink table as the committed output leaves it: every line of every part file, per subtask in order, applied by key. */
function committedState(out: string): { rows: string[]; lines: Row[] } {
  if (!existsSync(out)) return { rows: [], lines: [] };
  const parts = readdirSync(out).filter((n) => n.startsWith('part-'));
  const order = (n: string) => { const m = /^part-(\d+)-.*-(\d+)$/.exec(n)!; return Number(m[1]) * 1e9 + Number(m[2]); };
  const lines = parts.sort((a, b) => order(a) - order(b)).flatMap((n) => readFileSync(join(out, n), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Row));
  const state = new Map<string, Row>();
  const key = (r: Row) => `${r['shard']}|${r['id']}`;
  for (const l of lines) {
    if (l['op'] === 'ddl') continue;
    if (l['before']) state.delete(key(l['before'] as Row));
    if (l['after']) state.set(key(l['after'] as Row), l['after'] as Row);
  }
  return { rows: [...state.values()].map(line).sort(), lines };
}

async function mariaSource(): Promise<Source> {
  const server = await startMariaDb();
  const sql = await connect(server, 'mysql');
  await sql.query('CREATE DATABASE shop');
  await sql.query('USE shop');
  return {
    createLike: (table, like) => `CREATE TABLE shop.${table} LIKE shop.${like}`,
    exec: async (s) => void (await sql.query(s)),
    rows: async (q) => (await sql.query(q))[0] as Row[],
    block: `  type: mariadb
${serverLines('mariadb', server)}
  tables: shop.orders_\\d+
  server-id: 5400-5405`,
    stop: async () => {
      await sql.end().catch(() => {});
      await server.stop();
    },
  };
}

async function postgresSource(): Promise<Source> {
  const server = await startPostgres();
  const client = new pg.Client(server.connectionOptions());
  await client.connect();
  await client.query('CREATE SCHEMA shop');
  return {
    createLike: (table, like) => `CREATE TABLE shop.${table} (LIKE shop.${like} INCLUDING ALL)`,
    exec: async (s) => void (await client.query(s)),
    rows: async (q) => (await client.query<Row>(q)).rows,
    block: `  type: postgres
${serverLines('postgres', server)}
  tables: shop.orders_\\d+
  slot.name: added_table_test`,
    stop: async () => {
      await client.end().catch(() => {});
      await server.stop();
    },
  };
}

for (const [name, start] of [['postgres', postgresSource], ['mariadb', mariaSource]] as const) {
  test(`${name}: a table created and filled mid-run reaches the sink after its schema, with no restart, row for row`, { timeout: 240_000 }, async () => {
    const dir = makeTempDir(`pipeline-added-${name}`);
    const source = await start();
    const out = join(dir, 'out');
    let master: JobMaster | undefined;
    try {
      const create = (shard: string) => source.exec(`CREATE TABLE shop.${shard} (id INT PRIMARY KEY, price DECIMAL(10,2) NOT NULL, quantity INT NOT NULL)`);
      const fill = async (shard: string, from: number, to: number) => {
        for (let id = from; id <= to; id += 50) await source.exec(`INSERT INTO shop.${shard} VALUES ${Array.from({ length: Math.min(50, to - id + 1) }, (_, i) => `(${id + i}, ${id + i}.25, ${(id + i) % 4})`).join(', ')}`);
      };
      await create('orders_1');
      await fill('orders_1', 1, 200);
      const file = join(dir, 'pipeline.yaml');
      const text = `source:
${source.block}
sink:
  type: files
  path: ${out}
route:
  - source-table: shop.orders_\\d+
    sink-table: shop.orders
transform:
  - source-table: shop.orders_\\d+
    projection: id, price, quantity, price * quantity AS total, __table_name__ AS shard
    filter: quantity > 0
    primary-keys: shard, id
pipeline:
  name: added table ${name}
  parallelism: 2
  execution.checkpointing.interval: 500 ms
`;
      writeFileSync(file, text);
      const events = new JobEvents();
      master = await createJobMaster({
        job: PIPELINE_JOB_MODULE,
        args: pipelineJobArgs(file, text),
        config: { 'execution.checkpointing.dir': join(dir, 'checkpoints'), 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 5, 'restart-strategy.fixed-delay.delay': '200 ms' },
        listener: events.listener,
        log: createLogger({ level: 'error', write: () => {} }),
      });
      const result = master.run();
      await events.waitFor('the snapshot committed', () => committedState(out).rows.length > 0, 90_000);

      // A backlog in the log (MySQL) that the log reader works through while the new table already
      // exists: the source's discovery finds the table before the reader reaches its CREATE.
      await fill('orders_1', 1001, 6000);
      // MySQL: the log reader cannot read this CREATE's columns, so the table is found by its rows
      // (or the catalog look) and snapshotted with no create.table from the log.
      await source.exec(source.createLike('orders_2', 'orders_1'));
      await fill('orders_2', 1, 400);
      await source.exec('UPDATE shop.orders_2 SET quantity = 3 WHERE id <= 40');
      await source.exec('DELETE FROM shop.orders_2 WHERE id > 380');
      await source.exec('INSERT INTO shop.orders_1 VALUES (100000, 1.00, 1)');
      await source.exec('INSERT INTO shop.orders_2 VALUES (100000, 2.00, 1)');
      const [rows] = [await source.rows("SELECT 'orders_1' AS shard, id, price, quantity, price * quantity AS total FROM shop.orders_1 WHERE quantity > 0 UNION ALL SELECT 'orders_2', id, price, quantity, price * quantity FROM shop.orders_2 WHERE quantity > 0")];
      const expected = rows.map(line).sort();

      const deadline = Date.now() + 90_000;
      let got = committedState(out);
      while (JSON.stringify(got.rows) !== JSON.stringify(expected)) {
        if (master.status === 'FAILED') assert.fail(`the job failed: ${(await result).error?.message ?? ''}`);
        if (Date.now() >= deadline) assert.fail(`the output did not reach the source's state: ${got.rows.length} rows, ${expected.length} expected; restarts: ${JSON.stringify(events.restarts).slice(0, 2000)}`);
        await events.waitFor('the next completed checkpoint', (() => { const n = events.completed.length; return () => events.completed.length > n; })(), 30_000);
        got = committedState(out);
      }
      assert.deepEqual(events.restarts, [], 'no restart');
      const firstOf2 = got.lines.findIndex((l) => l['sourceTable'] === 'shop.orders_2');
      assert.equal(got.lines[firstOf2]?.['op'], 'ddl', 'the new table\'s first line is its create.table');
      process.stderr.write(`${name}: table created mid-run: ${expected.length} rows equal, no restart\n`);
    } finally {
      await master?.cancel().catch(() => {});
      await source.stop();
      removeDir(dir);
    }
  });
}
