// Tables added later (scanNewlyAddedTables) on PostgreSQL, as a job resumes from a checkpoint with
// other patterns (the counterpart of mysql-cdc-added-tables.test.ts): a table the new patterns
// match is snapshotted in chunks, then followed; the old table loses no change (also those written
// while the job was stopped); a table the patterns no longer match leaves the state with a log
// line. Twice: with a FOR TABLE publication (the source adds the table to it) and with a FOR ALL
// TABLES one (the table's changes while stopped are in the WAL, dropped until its chunks' HIGH).
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

function dialect(tables: string[], slotName: string, publicationName: string): PostgresDialect {
  return new PostgresDialect(resolvePostgresCdcOptions({ ...server.connectionOptions(), tables, slotName, publicationName, chunkSize: 1_000, scanNewlyAddedTables: true, warn: () => {} }));
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

/** Tables `<p>kept`, `<p>dropped_one` (followed before the stop) and `<p>later` (matched after it). */
async function addedOnResume(p: string, publication: 'for-tables' | 'for-all-tables'): Promise<void> {
  const [kept, droppedOne, later] = [`${p}kept`, `${p}dropped_one`, `${p}later`];
  const [slotName, pub] = [`${p}slot`, `${p}pub`];
  await createPgOrders(sql, kept, 0);
  await createPgOrders(sql, droppedOne, 0);
  await createPgOrders(sql, later, 3_000);
  await sql.query(publication === 'for-all-tables' ? `CREATE PUBLICATION ${pub} FOR ALL TABLES` : `CREATE PUBLICATION ${pub} FOR TABLE ${kept}, ${droppedOne}`);
  const r = await sql.query<{ lsn: string }>(`SELECT lsn::text AS lsn FROM pg_create_logical_replication_slot($1, 'pgoutput')`, [slotName]);
  const start: Lsn = parseLsn(r.rows[0]!.lsn);
  const first = await CdcReaderHarness.start(dialect([`public.${kept}`, `public.${droppedOne}`], slotName, pub), [{ ...logSplitFrom(start), captured: [`public.${kept}`, `public.${droppedOne}`] }]);
  let state;
  let records: CdcChangeRecord<PgChangeSource>[];
  try {
    await runPgWorkload(sql, kept, { seed: 1, operations: 300, maxKey: 500 });
    await sql.query(row(droppedOne, 1, 'x'));
    await sql.query(row(kept, 999990, 'mark'));
    await first.until((rs) => rs.some((x) => x.source.table === kept && x.after?.['id'] === 999990));
    assert.ok(first.records.some((x) => x.source.table === droppedOne), 'dropped_one is followed by the first patterns');
    assert.ok(!first.records.some((x) => x.source.table === later), 'later is not captured by the first patterns');
    state = first.checkpoint(1);
    records = [...first.records];
  } finally {
    await first.close();
  }
  // While the job is stopped (later is not in a FOR TABLE publication yet).
  await runPgWorkload(sql, kept, { seed: 2, operations: 200, maxKey: 500 });
  await runPgWorkload(sql, later, { seed: 3, operations: 200, maxKey: 6_000 });
  const second = await CdcReaderHarness.start(dialect([`public.${kept}`, `public.${later}`], slotName, pub), state);
  try {
    await runPgWorkload(sql, later, { seed: 4, operations: 200, maxKey: 6_000 });
    await sql.query(row(kept, 999999, 'end'));
    await sql.query(row(later, 999999, 'end'));
    await sql.query(row(droppedOne, 2, 'y'));
    await second.until((rs) => [kept, later].every((t) => rs.some((x) => x.source.table === t && x.after?.['id'] === 999999)), 120_000);
    await second.until(() => second.lines.some((l) => l.message.includes(`table public.${later} is snapshotted`)), 120_000);
    const published = await sql.query(`SELECT tablename FROM pg_publication_tables WHERE pubname = $1 ORDER BY tablename`, [pub]);
    assert.ok(published.rows.some((p) => p.tablename === later), `later is published (the source added it unless FOR ALL TABLES; the publication lists ${published.rows.map((p) => p.tablename).join(', ')})`);
    assert.ok(second.lines.some((l) => l.message.includes(`table public.${droppedOne} no longer matches the source's patterns: dropped from the state`)), 'the dropped table is logged');
    assert.ok(second.lines.some((l) => l.message.includes(`table public.${later} matches the source's patterns and was not snapshotted`)), 'the added table is logged');
    assert.ok(second.lines.some((l) => new RegExp(`table public\\.${later} is snapshotted \\([3-9] chunk`).test(l.message)), 'the added table is snapshotted in chunks');
    assert.ok(!second.records.some((x) => x.source.table === droppedOne), 'nothing of the table no longer matching');
    // Followed once snapshotted: changes after the snapshot come from the WAL.
    await runPgWorkload(sql, later, { seed: 5, operations: 200, maxKey: 6_000 });
    await sql.query(row(later, 1_000_001, 'followed'));
    await sql.query(row(kept, 1_000_001, 'followed'));
    await second.until((rs) => [kept, later].every((t) => rs.some((x) => x.source.table === t && x.after?.['id'] === 1_000_001)), 120_000);
    assert.ok(second.records.some((x) => x.source.table === later && x.op === 'c' && x.after?.['id'] === 1_000_001), 'later is followed after its snapshot');
    const afterState = second.checkpoint(2).find((s) => s.kind === 'binlog');
    assert.ok(afterState?.kind === 'binlog' && !afterState.captured?.includes(`public.${droppedOne}`) && afterState.captured?.includes(`public.${later}`), `the state lists later, not dropped_one: ${JSON.stringify(afterState?.kind === 'binlog' ? afterState.captured : null)}`);
    const all = [...records, ...second.records];
    const keptRows = await assertReplayEqualsTable(all, kept);
    const laterRows = await assertReplayEqualsTable(all, later);
    assert.ok(all.filter((x) => x.source.table === later && x.op === 'r').length > 2_000, 'later came as a snapshot');
    console.log(`${publication}: kept: ${keptRows} rows, ${all.filter((x) => x.source.table === kept).length} records across the restore; later: ${laterRows} rows, ${all.filter((x) => x.source.table === later && x.op === 'r').length} snapshot records, ${all.filter((x) => x.source.table === later && x.op !== 'r').length} log changes`);
  } finally {
    await second.close();
  }
}

test('PostgreSQL, publication FOR TABLE: a table added to the patterns on resume is added to the publication, snapshotted, then followed; the old table loses no change; a table no longer matching leaves the state with a log line', { timeout: 240_000 }, async () => {
  await addedOnResume('ft_', 'for-tables');
});

test('PostgreSQL, publication FOR ALL TABLES: a table added to the patterns on resume (its changes while stopped already in the WAL) is snapshotted, then followed; the old table loses no change; a table no longer matching leaves the state with a log line', { timeout: 240_000 }, async () => {
  await addedOnResume('fa_', 'for-all-tables');
});
