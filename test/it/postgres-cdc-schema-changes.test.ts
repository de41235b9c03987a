// Schema changes followed from PostgreSQL's logical replication (includeSchemaChanges): the
// RELATION messages pgoutput sends before a changed table's next row are diffed (ADD, a type
// change, RENAME, DROP COLUMN, a new table matching the pattern) and TRUNCATE messages reported,
// each mid-stream with rows before and after, on a reader that runs through and on one restored
// from a checkpoint taken after each change.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { PostgresDialect } from '../../src/connectors/postgres/postgres-dialect.ts';
import { parseLsn, type Lsn } from '../../src/connectors/postgres/lsn.ts';
import { resolvePostgresCdcOptions } from '../../src/connectors/postgres/postgres-cdc-options.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { connectPg } from '../fixtures/pg-cdc-workload.ts';
import { CdcSchemaChangeError } from '../../src/connectors/cdc/cdc-schema-error.ts';
import { CdcReaderHarness, logSplitFrom } from '../fixtures/cdc-reader-harness.ts';
import { describeRecord, runSchemaScenario } from '../fixtures/cdc-schema-scenario.ts';

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

function dialect(slotName: string, tables: string[], includeSchemaChanges = true): PostgresDialect {
  return new PostgresDialect(resolvePostgresCdcOptions({ ...server.connectionOptions(), tables, slotName, publicationName: 'schema_pub', includeSchemaChanges, warn: () => {} }));
}

/** A slot of the publication (made before it); the LSN it streams from. */
async function slot(name: string): Promise<Lsn> {
  const r = await sql.query<{ lsn: string }>(`SELECT lsn::text AS lsn FROM pg_create_logical_replication_slot($1, 'pgoutput')`, [name]);
  return parseLsn(r.rows[0]!.lsn);
}

test('PostgreSQL: each schema change comes in order with the rows, every row decodes by its schema, also across restores between a change and the next row', { timeout: 180_000 }, async () => {
  await sql.query('CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20), qty INT)');
  // FOR ALL TABLES: a table made later is published too (the source follows only those its patterns match).
  await sql.query('CREATE PUBLICATION schema_pub FOR ALL TABLES');
  const steadyStart = await slot('steady');
  const restoredStart = await slot('restored');
  const { steady: reader, restores } = await runSchemaScenario<Lsn, never>({
    exec: async (q) => void (await sql.query(q)),
    retypeQty: 'ALTER TABLE items ALTER COLUMN qty TYPE bigint',
    columnChangeWithNextRow: true,
    db: 'public',
    steady: dialect('steady', ['public.items*']) as never,
    restored: dialect('restored', ['public.items*']) as never,
    steadyStart,
    restoredStart,
  });
  assert.equal(restores, 5);
  const retyped = reader.records.find((r) => r.schemaChange?.changes[0]?.kind === 'alter.column.type')!;
  assert.deepEqual(retyped.schemaChange!.changes, [{ kind: 'alter.column.type', column: 'qty', type: 'int8' }]);
  const m = reader.reader.metrics();
  assert.equal(m['cdc_table_inserts:public.items'], 6);
  assert.equal(m['cdc_table_updates:public.items'], 1);
  assert.equal(m['cdc_table_schema_changes:public.items'], 5);
  assert.equal(m['cdc_table_schema_changes:public.items_2'], 1);
  await reader.close();
});

test('PostgreSQL: without includeSchemaChanges no DDL record comes and rows carry no version, yet a change is followed and logged', { timeout: 120_000 }, async () => {
  await sql.query('CREATE TABLE quiet (id INT PRIMARY KEY, a INT)');
  const start = await slot('quiet');
  const h = await CdcReaderHarness.start(dialect('quiet', ['public.quiet'], false), [logSplitFrom(start)]);
  try {
    await sql.query('INSERT INTO quiet VALUES (1, 1)');
    await sql.query('ALTER TABLE quiet RENAME COLUMN a TO b');
    await sql.query('INSERT INTO quiet VALUES (2, 2)');
    await h.until((r) => r.length >= 2);
    assert.deepEqual(h.records.map((r) => describeRecord(r)), ['c quiet vundefined {id=1,a=1}', 'c quiet vundefined {id=2,b=2}']);
    assert.ok(h.lines.some((l) => l.level === 'info' && /schema change of public\.quiet .*rename\.column; version 1/.test(l.message)), 'the change is logged');
  } finally {
    await h.close();
  }
});

test("PostgreSQL: a table's chunk key renamed while changes are still merged with its chunks fails with an error naming table and position", { timeout: 120_000 }, async () => {
  await sql.query('CREATE TABLE keyed (id INT PRIMARY KEY, a INT)');
  const start = await slot('keyed');
  // A log split still merging with a finished chunk of `keyed` up to a HIGH far ahead.
  const high = start + 2n ** 40n;
  const split = { ...logSplitFrom(start), tables: [{ db: 'public', table: 'keyed', keyColumn: 'id', keyKind: 'integer' as const, chunks: [{ start: null, end: null, high }] }], maxHigh: high };
  const h = await CdcReaderHarness.start(dialect('keyed', ['public.keyed']), [split]);
  try {
    await sql.query('INSERT INTO keyed VALUES (1, 1)');
    await sql.query('ALTER TABLE keyed RENAME COLUMN id TO ident');
    // pgoutput sends the table's new RELATION before its next row.
    await sql.query('INSERT INTO keyed VALUES (2, 2)');
    const error = await h.until(() => false, 60_000).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof CdcSchemaChangeError, `got ${String(error)}`);
    assert.equal(error.table, 'keyed');
    assert.equal(error.reason, 'chunk-key-dropped');
    assert.match(error.message, /public\.keyed cannot be followed past [0-9A-F]+\/[0-9A-F]+/);
    assert.deepEqual(h.records.map((r) => describeRecord(r)), [], 'a row inside the chunk up to its HIGH is the chunk\'s, not the log\'s');
  } finally {
    await h.close();
  }
});
