// Tables added later (scanNewlyAddedTables) on PostgreSQL, as a job resumes from a checkpoint with
// other patterns (the counterpart of mysql-cdc-added-tables.test.ts): a table the new patterns
// match, outside the publication (FOR TABLE, not FOR ALL TABLES), is added to it, snapshotted in
// chunks, then followed; the old table loses no change (also those written while the job was
// stopped); a table the patterns no longer match leaves the state with a log line.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { PostgresDialect } from '../../src/connectors/postgres/postgres-dialect.ts';
import { parseLsn, type Lsn } from '../../src/connectors/postgres/lsn.ts';
import { resolvePostgresCdcOptions } from '../../src/connectors/postgres/postgres-cdc-options.ts';
import type { PgChangeSource } from '../../src/connectors/postgres/pg-change-record.ts';
import type { CdcChangeRecord, CdcRecordSource } from '../../src/connectors/cdc/change-record.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { connectPg, createPgOrders, runPgWorkload, selectAllPg } from '../fixtures/pg-cdc-workload.ts';
import { CdcReaderHarness, logSplitFrom } from '../fixtures/cdc-reader-harness.ts';
import { duplicateRecords, replayRecords } from '../fixtures/cdc-replay.ts';

let server: PostgresServer;
let sql: pg.Client;
before(async () => {
  server = await startPostgres();
  sql = await connectPg(server);
});
after(async () => {
  await sql?.end();
  await server?.stop();
});

function dialect(tables: string[]): PostgresDialect {
  return new PostgresDialect(resolvePostgresCdcOptions({ ...server.connectionOptions(), tables, slotName: 'resume_added', publicationName: 'resume_pub', chunkSize: 1_000, scanNewlyAddedTables: true, warn: () => {} }));
}

async function assertReplayEqualsTable(records: readonly CdcChangeRecord<CdcRecordSource>[], table: string): Promise<number> {
  const place = (src: CdcRecordSource) => {
    const s = src as unknown as PgChangeSource;
    return `${s.changeLsn}#${s.index}`;
  };
  assert.deepEqual(duplicateRecords(records, table, place).slice(0, 5), [], `${table}: no change twice`);
  const expected = await selectAllPg(server, table);
  assert.ok(expected.size > 0, `${table}: the table is not empty, the comparison compares rows`);
  const actual = replayRecords(records, table);
  assert.equal(actual.size, expected.size, `${table}: row count`);
  for (const [id, row] of expected) assert.deepEqual(actual.get(id), row, `${table}: row ${id}`);
  return expected.size;
}

const row = (table: string, id: number, customer: string) => `INSERT INTO ${table} VALUES (${id}, '${customer}', 0, NULL, NULL, now()::timestamp(3), NULL)`;

test('PostgreSQL: a table added to the patterns on resume is published, snapshotted, then followed; the old table loses no change; a table no longer matching leaves the state with a log line', { timeout: 240_000 }, async () => {
  await createPgOrders(sql, 'kept', 0);
  await createPgOrders(sql, 'dropped_one', 0);
  await createPgOrders(sql, 'later', 3_000);
  await sql.query('CREATE PUBLICATION resume_pub FOR TABLE kept, dropped_one');
  const r = await sql.query<{ lsn: string }>(`SELECT lsn::text AS lsn FROM pg_create_logical_replication_slot('resume_added', 'pgoutput')`);
  const start: Lsn = parseLsn(r.rows[0]!.lsn);
  const first = await CdcReaderHarness.start(dialect(['public.kept', 'public.dropped_one']), [{ ...logSplitFrom(start), captured: ['public.kept', 'public.dropped_one'] }]);
  let state;
  let records: CdcChangeRecord<PgChangeSource>[];
  try {
    await runPgWorkload(sql, 'kept', { seed: 1, operations: 300, maxKey: 500 });
    await sql.query(row('dropped_one', 1, 'x'));
    await sql.query(row('kept', 999990, 'mark'));
    await first.until((rs) => rs.some((x) => x.source.table === 'kept' && x.after?.['id'] === 999990));
    assert.ok(first.records.some((x) => x.source.table === 'dropped_one'), 'dropped_one is followed by the first patterns');
    assert.ok(!first.records.some((x) => x.source.table === 'later'), 'later is not captured by the first patterns');
    state = first.checkpoint(1);
    records = [...first.records];
  } finally {
    await first.close();
  }
  // While the job is stopped: later is not in the publication yet.
  await runPgWorkload(sql, 'kept', { seed: 2, operations: 200, maxKey: 500 });
  await runPgWorkload(sql, 'later', { seed: 3, operations: 200, maxKey: 6_000 });
  const second = await CdcReaderHarness.start(dialect(['public.kept', 'public.later']), state);
  try {
    await runPgWorkload(sql, 'later', { seed: 4, operations: 200, maxKey: 6_000 });
    await sql.query(row('kept', 999999, 'end'));
    await sql.query(row('later', 999999, 'end'));
    await sql.query(row('dropped_one', 2, 'y'));
    await second.until((rs) => ['kept', 'later'].every((t) => rs.some((x) => x.source.table === t && x.after?.['id'] === 999999)), 120_000);
    const published = await sql.query(`SELECT tablename FROM pg_publication_tables WHERE pubname = 'resume_pub' ORDER BY tablename`);
    assert.ok(published.rows.some((p) => p.tablename === 'later'), `the source added later to the publication (it lists ${published.rows.map((p) => p.tablename).join(', ')})`);
    assert.ok(second.lines.some((l) => l.message.includes('table public.dropped_one no longer matches the source\'s patterns: dropped from the state')), 'the dropped table is logged');
    assert.ok(second.lines.some((l) => /table public\.later matches the source's patterns and was not snapshotted/.test(l.message)), 'the added table is logged');
    assert.ok(second.lines.some((l) => /table public\.later is snapshotted \([3-9] chunk/.test(l.message)), 'the added table is snapshotted in chunks');
    assert.ok(!second.records.some((x) => x.source.table === 'dropped_one'), 'nothing of the table no longer matching');
    // Followed once snapshotted: changes after the snapshot come from the WAL.
    await second.until(() => second.lines.some((l) => /table public\.later is snapshotted/.test(l.message)), 120_000);
    await runPgWorkload(sql, 'later', { seed: 5, operations: 200, maxKey: 6_000 });
    await sql.query(row('later', 1_000_001, 'followed'));
    await sql.query(row('kept', 1_000_001, 'followed'));
    await second.until((rs) => ['kept', 'later'].every((t) => rs.some((x) => x.source.table === t && x.after?.['id'] === 1_000_001)), 120_000);
    assert.ok(second.records.some((x) => x.source.table === 'later' && x.op === 'c' && x.after?.['id'] === 1_000_001), 'later is followed after its snapshot');
    const afterState = second.checkpoint(2).find((s) => s.kind === 'binlog');
    assert.ok(afterState?.kind === 'binlog' && !afterState.captured?.includes('public.dropped_one') && afterState.captured?.includes('public.later'), `the state lists later, not dropped_one: ${JSON.stringify(afterState?.kind === 'binlog' ? afterState.captured : null)}`);
    const all = [...records, ...second.records];
    const kept = await assertReplayEqualsTable(all, 'kept');
    const later = await assertReplayEqualsTable(all, 'later');
    assert.ok(all.filter((x) => x.source.table === 'later' && x.op === 'r').length > 2_000, 'later came as a snapshot');
    console.log(`kept: ${kept} rows, ${all.filter((x) => x.source.table === 'kept').length} records across the restore; later: ${later} rows, ${all.filter((x) => x.source.table === 'later' && x.op === 'r').length} snapshot records, ${all.filter((x) => x.source.table === 'later' && x.op !== 'r').length} log changes`);
  } finally {
    await second.close();
  }
});
