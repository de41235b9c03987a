// How tables are cut into chunks: evenly spread integer keys by arithmetic, others by queried
// boundaries (skewed integers, binary strings, decimals, a non-unique chunk key), every row in
// exactly one chunk; tables that cannot be cut are refused with the table and column named.
// And backlog-aware checkpoints: with interval-during-backlog 0 no checkpoint is taken while the
// snapshot runs, and they resume when it is done.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, defineJob, type Sink } from '../../src/index.ts';
import { MySqlCdcSource, TableSchemaCache, type ChangeRecord } from '../../src/connectors/mysql/index.ts';
import { nextChunk, planTable, TableNotSplittableError, type SplitterOptions } from '../../src/connectors/mysql/chunk-splitter.ts';
import { UnsupportedChunkKeyError } from '../../src/connectors/mysql/chunk-key.ts';
import { selectChunk } from '../../src/connectors/mysql/snapshot-chunk-reader.ts';
import { connectSql, type SqlClient } from '../../src/connectors/mysql/sql-client.ts';
import type { SnapshotSplit } from '../../src/connectors/mysql/cdc-split.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, createOrders, type Sql } from '../fixtures/cdc-workload.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const OPTIONS: SplitterOptions = { chunkSize: 100, chunkKeyColumn: {}, distributionFactorUpper: 1000, distributionFactorLower: 0.05 };

describe('chunking tables', () => {
  let server: MariaDbServer;
  let sql: Sql;
  let client: SqlClient;
  let schemas: TableSchemaCache;
  let root: string;
  before(async () => {
    root = makeTempDir('cdc-chunks');
    server = await startMariaDb();
    sql = await connect(server);
    client = await connectSql(server.connectionOptions());
    schemas = new TableSchemaCache(client);
    await sql.query('CREATE TABLE skewed (id BIGINT PRIMARY KEY, v INT)');
    await sql.query('INSERT INTO skewed SELECT seq, seq FROM seq_1_to_1000');
    await sql.query('INSERT INTO skewed SELECT 9000000000000000000 + seq, seq FROM seq_1_to_250');
    await sql.query('CREATE TABLE names (name VARCHAR(20) COLLATE utf8mb4_bin PRIMARY KEY, v INT)');
    await sql.query("INSERT INTO names SELECT CONCAT(CHAR(65 + seq % 26), 'é', seq), seq FROM seq_1_to_777");
    await sql.query('CREATE TABLE prices (p DECIMAL(20,6) PRIMARY KEY, v INT)');
    await sql.query('INSERT INTO prices SELECT seq / 7 - 50, seq FROM seq_1_to_500');
    await sql.query('CREATE TABLE order_lines (order_id INT, line INT, v INT, PRIMARY KEY (order_id, line))');
    await sql.query('INSERT INTO order_lines SELECT seq DIV 150, seq, seq FROM seq_1_to_900');
    await sql.query('CREATE TABLE nokey (v INT)');
    await sql.query('CREATE TABLE ci (name VARCHAR(20) PRIMARY KEY)');
    await sql.query('CREATE TABLE floats (f DOUBLE PRIMARY KEY)');
  });
  after(async () => {
    await client?.close();
    await sql?.end();
    await server?.stop();
    removeDir(root);
  });

  /** Cuts the whole table and reads every chunk. */
  async function cut(table: string, options = OPTIONS): Promise<{ splits: SnapshotSplit[]; rows: number; even: boolean }> {
    let plan = await planTable(client, await schemas.get('test', table), options);
    const even = plan.step !== null;
    const splits: SnapshotSplit[] = [];
    let rows = 0;
    for (;;) {
      const next = await nextChunk(client, plan, options.chunkSize);
      if (!next) break;
      splits.push(next.split);
      plan = next.plan;
      rows += (await selectChunk(client, next.split)).length;
    }
    return { splits, rows, even };
  }

  test('evenly spread integer keys are cut by arithmetic', async () => {
    await createOrders(sql, 'even', 1000);
    const { splits, rows, even } = await cut('even');
    assert.equal(even, true);
    assert.equal(rows, 1000);
    assert.equal(splits[0]!.start, null);
    assert.equal(splits.at(-1)!.end, null);
    for (let i = 1; i < splits.length; i++) assert.equal(splits[i]!.start, splits[i - 1]!.end, 'chunks are contiguous');
  });

  test('skewed BIGINT keys (up to 9e18) are cut by queried boundaries, exactly', async () => {
    const { splits, rows, even } = await cut('skewed');
    assert.equal(even, false);
    assert.equal(rows, 1250);
    assert.equal(splits.length, 13);
    assert.ok(splits.some((s) => typeof s.start === 'bigint' && s.start > 9_000_000_000_000_000_000n));
  });

  test('binary-collated strings, decimals and the first column of a composite key', async () => {
    const names = await cut('names');
    assert.equal(names.rows, 777);
    const prices = await cut('prices');
    assert.equal(prices.rows, 500);
    assert.ok(prices.splits.some((s) => typeof s.start === 'string' && s.start.startsWith('-')), 'negative decimal bounds');
    // 150 rows share each order_id: a chunk takes all of them even past the chunk size.
    const lines = await cut('order_lines');
    assert.equal(lines.rows, 900);
  });

  test('a table without a primary key needs a chunk key column; unsupported key types are refused by name', async () => {
    await assert.rejects(planTable(client, await schemas.get('test', 'nokey'), OPTIONS), (e: Error) => e instanceof TableNotSplittableError && /test\.nokey: it has no primary key/.test(e.message));
    await sql.query('INSERT INTO nokey SELECT seq FROM seq_1_to_10');
    const withKey = await cut('nokey', { ...OPTIONS, chunkKeyColumn: { nokey: 'v' } });
    assert.equal(withKey.rows, 10);
    await assert.rejects(planTable(client, await schemas.get('test', 'ci'), OPTIONS), (e: Error) => e instanceof UnsupportedChunkKeyError && /column 'name'.*utf8mb4_general_ci/.test(e.message));
    await assert.rejects(planTable(client, await schemas.get('test', 'floats'), OPTIONS), (e: Error) => e instanceof UnsupportedChunkKeyError && /'f' \(double\)/.test(e.message));
  });

  test('a job over a table that cannot be cut fails at once, naming the table and column, without restarts', async () => {
    const source = new MySqlCdcSource({ ...server.connectionOptions(), database: 'test', tables: ['ci'], serverId: '5810-5811' });
    const job = await createJobMaster({
      job: defineJob((env) => {
        env.enableCheckpointing(100);
        env.fromSource(source, { uid: 'cdc' }).sinkTo({ createWriter: () => ({ write: () => {} }) }, { uid: 'sink' });
      }),
      config: { 'execution.checkpointing.dir': join(root, 'unsplittable'), 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 5 },
      log: createLogger({ level: 'error', write: () => {} }),
    });
    const result = await job.run();
    assert.equal(result.status, 'FAILED');
    assert.equal(result.restarts, 0);
    assert.match(result.error?.message ?? '', /cannot run as defined.*table test\.ci: cannot split it into chunks by column 'name'/s);
  });

  test('interval-during-backlog 0: no checkpoint while the snapshot runs, checkpoints again after it', async () => {
    await createOrders(sql, 'backlog', 60_000);
    const records: ChangeRecord[] = [];
    let arrived: (() => void) | undefined;
    const sink: Sink<ChangeRecord> = { createWriter: () => ({ write: (r) => void (records.push(r), arrived?.()) }) };
    const events = new JobEvents();
    const source = new MySqlCdcSource({ ...server.connectionOptions(), database: 'test', tables: ['backlog'], chunkSize: 500, serverId: '5800-5801' });
    const job = await createJobMaster({
      job: defineJob((env) => {
        env.enableCheckpointing(50);
        env.fromSource(source, { uid: 'cdc' }).sinkTo(sink, { uid: 'sink' });
      }),
      config: { 'execution.checkpointing.dir': join(root, 'backlog'), 'execution.checkpointing.interval-during-backlog': 0 },
      listener: events.listener,
      log: createLogger({ level: 'error' }),
    });
    const running = job.run();
    const snapshotDone: number[] = [];
    await new Promise<void>((resolve) => {
      events.onCompleted = () => {
        snapshotDone.push(Object.values(job.sourceCoordinatorMetrics())[0]?.['snapshot_done'] ?? -1);
        if (snapshotDone.length >= 2) resolve();
      };
    });
    const rows = records.filter((r) => r.op === 'r').length;
    // A checkpoint in flight when the job is cancelled fails with it; none may fail before.
    const failedBeforeCancel = [...events.failed];
    await job.cancel();
    await running;
    assert.equal(rows, 60_000, 'the snapshot was done before the first checkpoint');
    assert.deepEqual(snapshotDone, [1, 1]);
    assert.deepEqual(failedBeforeCancel, []);
  });
});
