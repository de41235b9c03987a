// Tables added later (scanNewlyAddedTables) on MariaDB, as a job resumes from a checkpoint with
// other patterns: a table the new patterns match is snapshotted, then followed; the old table
// loses no change (also those written while the job was stopped); a table the patterns no longer
// match leaves the state with a log line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { MySqlDialect } from '../../src/connectors/mysql/mysql-dialect.ts';
import { resolveCdcOptions } from '../../src/connectors/mysql/mysql-cdc-options.ts';
import type { CdcChangeRecord, CdcRecordSource } from '../../src/connectors/cdc/change-record.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, insertOrders, runWorkload, selectAll, type Sql } from '../fixtures/cdc-workload.ts';
import { CdcReaderHarness, currentLogPosition, logSplitFrom } from '../fixtures/cdc-reader-harness.ts';
import { duplicateRecords, replayRecords } from '../fixtures/cdc-replay.ts';

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

function dialect(tables: string[]): MySqlDialect {
  return new MySqlDialect(resolveCdcOptions({ ...server.connectionOptions(), database: 'test', tables, serverId: '6401-6402', chunkSize: 1_000, scanNewlyAddedTables: true }));
}

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

test('MariaDB: a table added to the patterns on resume is snapshotted, then followed; the old table loses no change; a table no longer matching leaves the state with a log line', { timeout: 240_000 }, async () => {
  await sql.query(`CREATE TABLE kept ${ORDERS}`);
  await sql.query(`CREATE TABLE dropped_one ${ORDERS}`);
  await sql.query(`CREATE TABLE later ${ORDERS}`);
  await insertOrders(sql, 'later', 3_000);
  const start = await currentLogPosition(dialect(['kept']));
  const first = await CdcReaderHarness.start(dialect(['kept', 'dropped_one']), [{ ...logSplitFrom(start), captured: ['test.kept', 'test.dropped_one'] }]);
  await runWorkload(sql, 'kept', { seed: 1, operations: 300, maxKey: 500 });
  await sql.query(`INSERT INTO dropped_one VALUES (1, 'x', 1, NULL, NULL, NOW(3))`);
  await sql.query(`INSERT INTO kept VALUES (999990, 'mark', 0, NULL, NULL, NOW(3))`);
  await first.until((rs) => rs.some((r) => r.source.table === 'kept' && r.after?.['id'] === 999990));
  assert.ok(!first.records.some((r) => r.source.table === 'later'), 'later is not captured by the first patterns');
  const state = first.checkpoint(1);
  const records = [...first.records];
  await first.close();
  // While the job is stopped.
  await runWorkload(sql, 'kept', { seed: 2, operations: 200, maxKey: 500 });
  await runWorkload(sql, 'later', { seed: 3, operations: 200, maxKey: 6_000 });
  const second = await CdcReaderHarness.start(dialect(['kept', 'later']), state);
  try {
    await runWorkload(sql, 'later', { seed: 4, operations: 200, maxKey: 6_000 });
    await sql.query(`INSERT INTO kept VALUES (999999, 'end', 0, NULL, NULL, NOW(3))`);
    await sql.query(`INSERT INTO later VALUES (999999, 'end', 0, NULL, NULL, NOW(3))`);
    await sql.query(`INSERT INTO dropped_one VALUES (2, 'y', 1, NULL, NULL, NOW(3))`);
    await second.until((rs) => ['kept', 'later'].every((t) => rs.some((r) => r.source.table === t && r.after?.['id'] === 999999)));
    assert.ok(second.lines.some((l) => l.message.includes('table test.dropped_one no longer matches the source\'s patterns: dropped from the state')), 'the dropped table is logged');
    assert.ok(second.lines.some((l) => /table test\.later matches the source's patterns and was not snapshotted/.test(l.message)), 'the added table is logged');
    assert.ok(second.lines.some((l) => /table test\.later is snapshotted \([3-9] chunk/.test(l.message)), 'the added table is snapshotted in chunks');
    assert.ok(!second.records.some((r) => r.source.table === 'dropped_one'), 'nothing of the table no longer matching');
    const after = second.checkpoint(2).find((s) => s.kind === 'binlog');
    assert.ok(after?.kind === 'binlog' && !after.captured?.includes('test.dropped_one') && after.captured?.includes('test.later'), 'the state lists later, not dropped_one');
    const all = [...records, ...second.records];
    const kept = await assertReplayEqualsTable(all, 'kept');
    const later = await assertReplayEqualsTable(all, 'later');
    assert.ok(all.filter((r) => r.source.table === 'later' && r.op === 'r').length > 2_000, 'later came as a snapshot');
    console.log(`kept: ${kept} rows, ${all.filter((r) => r.source.table === 'kept').length} records across the restore; later: ${later} rows`);
  } finally {
    await second.close();
  }
});
