// Tables added later (scanNewlyAddedTables) on MariaDB: a table created mid-stream with 50,000
// rows inserted before and during its snapshot is snapshotted in chunks by the binlog's reader
// while the other table keeps streaming; a restore from a checkpoint taken during that snapshot
// continues it. The stream, committed up to the checkpoint plus the restored reader's, replayed
// equals each table record for record.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MySqlLogPosition } from '../../src/connectors/mysql/cdc-split.ts';
import type { ChangeSource } from '../../src/connectors/mysql/change-record.ts';
import { MySqlDialect } from '../../src/connectors/mysql/mysql-dialect.ts';
import { resolveCdcOptions } from '../../src/connectors/mysql/mysql-cdc-options.ts';
import type { CdcChangeRecord, CdcRecordSource } from '../../src/connectors/cdc/change-record.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, insertOrders, runWorkload, selectAll, type Sql } from '../fixtures/cdc-workload.ts';
import { duplicateRecords, recordsDuringSnapshot, replayRecords } from '../fixtures/cdc-replay.ts';
import { CdcReaderHarness, currentLogPosition, logSplitFrom } from '../fixtures/cdc-reader-harness.ts';

let server: MariaDbServer;
let sql: Sql;
before(async () => {
  server = await startMariaDb();
  sql = await connect(server);
});
after(async () => {
  await sql?.end();
  await server?.stop();
});

const ORDERS = `(id INT PRIMARY KEY, customer VARCHAR(40) NOT NULL, amount DECIMAL(12,2) NOT NULL, big BIGINT, status VARCHAR(16), updated DATETIME(3) NOT NULL)`;

async function assertReplayEqualsTable(records: readonly CdcChangeRecord<CdcRecordSource>[], table: string): Promise<number> {
  const place = (src: CdcRecordSource) => {
    const s = src as unknown as { file: string; pos: number; row: number };
    return `${s.file}:${s.pos}#${s.row}`;
  };
  assert.deepEqual(duplicateRecords(records, table, place).slice(0, 5), [], `${table}: no change twice`);
  const expected = await selectAll(server, table);
  const actual = replayRecords(records, table);
  assert.equal(actual.size, expected.size, `${table}: row count`);
  for (const [id, row] of expected) assert.deepEqual(actual.get(id), row, `${table}: row ${id}`);
  return expected.size;
}

test('MariaDB: a table created mid-stream with 50,000 rows inserted before and during its snapshot is snapshotted while the other table streams, across a restore from a checkpoint taken during it', { timeout: 600_000 }, async () => {
  await sql.query(`CREATE TABLE base ${ORDERS}`);
  const d = new MySqlDialect(resolveCdcOptions({ ...server.connectionOptions(), database: 'test', tables: ['base', 'added*'], serverId: '6301-6302', chunkSize: 2_000, scanNewlyAddedTables: true }));
  const start = await currentLogPosition(d);
  // As the snapshot phase hands it over: `base` snapshotted (it was empty).
  const first = await CdcReaderHarness.start(d, [{ ...logSplitFrom(start), captured: ['test.base'] }]);
  let stop = false;
  const other = await connect(server);
  const baseWork = runWorkload(other, 'base', { seed: 26, operations: 1_000_000, maxKey: 2_000, until: () => stop });
  let records: CdcChangeRecord<ChangeSource>[] = [];
  let second: CdcReaderHarness<MySqlLogPosition, ChangeSource> | undefined;
  try {
    await sql.query(`CREATE TABLE added_orders ${ORDERS}`);
    await insertOrders(sql, 'added_orders', 25_000);
    const isAdded = (r: CdcChangeRecord<CdcRecordSource>) => r.source.table === 'added_orders';
    await first.until((rs) => rs.some((r) => isAdded(r) && r.op === 'r'), 120_000);
    // During its snapshot: 25,000 more rows, and updates and deletes across its key range.
    const writer = await connect(server);
    const addedWork = (async () => {
      for (let i = 0; i < 25; i++) await insertOrders(writer, 'added_orders', 1_000, { first: 25_001 + i * 1_000 });
      await runWorkload(writer, 'added_orders', { seed: 7, operations: 400, maxKey: 100_000 });
    })();
    await first.until((rs) => rs.filter((r) => isAdded(r) && r.op === 'r').length >= 8_000, 180_000);
    // A checkpoint during the added table's snapshot: what came before it is committed.
    const state = first.checkpoint(1);
    records = [...first.records];
    await first.close();
    assert.ok(state.some((s) => s.kind === 'binlog' && (s.adding?.length ?? 0) > 0), 'the checkpoint holds the added table mid-snapshot');
    second = await CdcReaderHarness.start(d, state);
    await addedWork;
    await writer.end();
    stop = true;
    await baseWork;
    // The end: a sentinel row of each table, once the added table's snapshot is done.
    await sql.query(`INSERT INTO base VALUES (999999, 'end', 0, NULL, NULL, NOW(3))`);
    await sql.query(`INSERT INTO added_orders VALUES (999999, 'end', 0, NULL, NULL, NOW(3))`);
    const h = second!;
    await h.until((rs) => ['base', 'added_orders'].every((t) => rs.some((r) => r.source.table === t && r.after?.['id'] === 999999)), 300_000);
    assert.ok(h.lines.some((l) => /table test\.added_orders is snapshotted \(\d+ chunk/.test(l.message)), 'the snapshot finished');
    const all = [...records, ...h.records];
    const addedRows = await assertReplayEqualsTable(all, 'added_orders');
    const baseRows = await assertReplayEqualsTable(all, 'base');
    assert.ok(addedRows > 45_000, `added_orders has ${addedRows} rows`);
    // The other table streamed during the added table's snapshot: its changes lie between the first and the last snapshot row.
    const between = recordsDuringSnapshot(all, 'added_orders', 'base');
    assert.ok(between > 0, 'changes of base were emitted during the snapshot of added_orders');
    console.log(`added_orders: ${addedRows} rows (${all.filter((r) => isAdded(r) && r.op === 'r').length} snapshot records, ${all.filter((r) => isAdded(r) && r.op !== 'r').length} log changes); base: ${baseRows} rows, ${between} changes during the snapshot; ${records.length} records before the checkpoint`);
  } finally {
    stop = true;
    await baseWork.catch(() => {});
    await other.end();
    await first.close();
    await second?.close();
  }
});
