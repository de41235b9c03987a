// Tables added later (scanNewlyAddedTables) on PostgreSQL: a table created mid-stream, outside
// the publication, with 50,000 rows inserted before and during its snapshot, is found, added to
// the publication and snapshotted in chunks by the WAL's reader while the other table keeps
// streaming; a restore from a checkpoint taken during that snapshot continues it. The stream,
// committed up to the checkpoint plus the restored reader's, replayed equals each table.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { PostgresDialect } from '../../src/connectors/postgres/postgres-dialect.ts';
import { parseLsn, type Lsn } from '../../src/connectors/postgres/lsn.ts';
import { resolvePostgresCdcOptions } from '../../src/connectors/postgres/postgres-cdc-options.ts';
import type { PgChangeSource } from '../../src/connectors/postgres/pg-change-record.ts';
import type { CdcChangeRecord, CdcRecordSource } from '../../src/connectors/cdc/change-record.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { connectPg, createPgOrders, insertPgOrders, runPgWorkload, selectAllPg } from '../fixtures/pg-cdc-workload.ts';
import { CdcReaderHarness, logSplitFrom } from '../fixtures/cdc-reader-harness.ts';
import { duplicateRecords, recordsDuringSnapshot, replayRecords } from '../fixtures/cdc-replay.ts';

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

function dialect(slotName: string): PostgresDialect {
  return new PostgresDialect(resolvePostgresCdcOptions({ ...server.connectionOptions(), tables: ['public.base', 'public.added*'], slotName, publicationName: 'added_pub', chunkSize: 2_000, scanNewlyAddedTables: true, warn: () => {} }));
}

async function slot(name: string): Promise<Lsn> {
  const r = await sql.query<{ lsn: string }>(`SELECT lsn::text AS lsn FROM pg_create_logical_replication_slot($1, 'pgoutput')`, [name]);
  return parseLsn(r.rows[0]!.lsn);
}

async function assertReplayEqualsTable(records: readonly CdcChangeRecord<CdcRecordSource>[], table: string): Promise<number> {
  const place = (src: CdcRecordSource) => {
    const s = src as unknown as PgChangeSource;
    return `${s.changeLsn}#${s.index}`;
  };
  assert.deepEqual(duplicateRecords(records, table, place).slice(0, 5), [], `${table}: no change twice`);
  const expected = await selectAllPg(server, table);
  const actual = replayRecords(records, table);
  assert.equal(actual.size, expected.size, `${table}: row count`);
  for (const [id, row] of expected) assert.deepEqual(actual.get(id), row, `${table}: row ${id}`);
  return expected.size;
}

test('PostgreSQL: a table created mid-stream outside the publication with 50,000 rows inserted before and during its snapshot is published, snapshotted while the other table streams, across a restore from a checkpoint taken during it', { timeout: 600_000 }, async () => {
  await createPgOrders(sql, 'base', 0);
  await sql.query('CREATE PUBLICATION added_pub FOR TABLE base');
  const firstStart = await slot('added_first');
  await slot('added_second');
  const first = await CdcReaderHarness.start(dialect('added_first'), [{ ...logSplitFrom(firstStart), captured: ['public.base'] }]);
  let stop = false;
  const other = await connectPg(server);
  const baseWork = runPgWorkload(other, 'base', { seed: 26, operations: 1_000_000, maxKey: 2_000, until: () => stop });
  let records: CdcChangeRecord<PgChangeSource>[] = [];
  let second: CdcReaderHarness<Lsn, PgChangeSource> | undefined;
  try {
    await createPgOrders(sql, 'added_orders', 25_000);
    const isAdded = (r: CdcChangeRecord<CdcRecordSource>) => r.source.table === 'added_orders';
    await first.until((rs) => rs.some((r) => isAdded(r) && r.op === 'r'), 120_000);
    const published = await sql.query(`SELECT 1 FROM pg_publication_tables WHERE pubname = 'added_pub' AND tablename = 'added_orders'`);
    assert.equal(published.rowCount, 1, 'the source added the table to the publication');
    const writer = await connectPg(server);
    const addedWork = (async () => {
      for (let i = 0; i < 25; i++) await insertPgOrders(writer, 'added_orders', 1_000, { first: 25_001 + i * 1_000 });
      await runPgWorkload(writer, 'added_orders', { seed: 7, operations: 400, maxKey: 100_000 });
    })();
    await first.until((rs) => rs.filter((r) => isAdded(r) && r.op === 'r').length >= 8_000, 180_000);
    const state = first.checkpoint(1);
    records = [...first.records];
    await first.close();
    assert.ok(state.some((s) => s.kind === 'binlog' && (s.adding?.length ?? 0) > 0), 'the checkpoint holds the added table mid-snapshot');
    second = await CdcReaderHarness.start(dialect('added_second'), state);
    await addedWork;
    await writer.end();
    stop = true;
    await baseWork;
    await sql.query(`INSERT INTO base VALUES (999999, 'end', 0, NULL, NULL, now()::timestamp(3), NULL)`);
    await sql.query(`INSERT INTO added_orders VALUES (999999, 'end', 0, NULL, NULL, now()::timestamp(3), NULL)`);
    const h = second;
    await h.until((rs) => ['base', 'added_orders'].every((t) => rs.some((r) => r.source.table === t && r.after?.['id'] === 999999)), 300_000);
    assert.ok(h.lines.some((l) => /table public\.added_orders is snapshotted \(\d+ chunk/.test(l.message)), 'the snapshot finished');
    const all = [...records, ...h.records];
    const addedRows = await assertReplayEqualsTable(all, 'added_orders');
    const baseRows = await assertReplayEqualsTable(all, 'base');
    assert.ok(addedRows > 45_000, `added_orders has ${addedRows} rows`);
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
