// Array columns through PostgresSink against a private PostgreSQL, in every mode: insert (COPY),
// upsert and changelog (statements over unnest, where an array of arrays would be flattened), an
// array key column in deletes, and elements that need quoting.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresSink, ColumnMismatchError, type DatabaseSinkMode } from '../../../src/connectors/postgres/index.ts';
import { pgArrayText } from '../../../src/connectors/postgres/pg-array-text.ts';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';
import { sinkContext } from '../../fixtures/sink-commit-idempotence.ts';

const AT = new Date('2026-03-04T05:06:07.250Z');
const TRICKY = ['a "quoted" word', 'back\\slash', 'NULL', '', 'comma, {brace}', 'tab\there', 'new\nline', 'ünï'];

function row(id: number, variant = 0) {
  return {
    id,
    tags: [...TRICKY.slice(0, 1 + ((id + variant) % TRICKY.length)), null],
    scores: [id, -variant || 0, 2_000_000_000],
    grid: [
      [id, 1],
      [2, variant],
    ],
    big: [BigInt(id) * 10_000_000_000n],
    flags: [true, false, null],
    at: [AT, null],
    docs: [{ id, nested: [1, 'x'] }, null],
    empty: [] as number[],
    note: `n${id}.${variant}`,
  };
}

describe('PostgresSink array columns', () => {
  let server: PostgresServer;
  let client: pg.Client;
  const query = async <R = Record<string, unknown>>(text: string) => (await client.query(text)).rows as R[];

  before(async () => {
    server = await startPostgres();
    client = new pg.Client(server.connectionOptions());
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await server?.stop();
  });

  async function table(name: string): Promise<void> {
    await query(
      `CREATE TABLE ${name} (id int PRIMARY KEY, tags text[], scores int4[], grid int4[][], big int8[], flags bool[], at timestamptz[], docs jsonb[], empty int4[], note varchar(20))`,
    );
  }

  async function write(name: string, mode: DatabaseSinkMode, records: readonly unknown[], batchSize = 4): Promise<void> {
    const sink = new PostgresSink({ connection: server.connectionOptions(), table: name, mode, ...(mode === 'insert' ? {} : { key: ['id'] }), batchSize });
    const writer = await sink.createWriter(sinkContext());
    const committer = await sink.createCommitter(sinkContext());
    for (const r of records) {
      writer.write(r as Record<string, unknown>);
      await writer.ready?.();
    }
    await committer.commit(await writer.prepareCommit(1));
    await writer.close!();
    await committer.close!();
  }

  /** What the table holds, in the records' shape (node-pg returns int8[] as strings). */
  async function read(name: string) {
    const rows = await query<Record<string, unknown>>(`SELECT * FROM ${name} ORDER BY id`);
    return rows.map((r) => ({ ...r, big: (r.big as string[] | null)?.map((b) => BigInt(b)) ?? null }));
  }

  test('insert (COPY): every array column round-trips, quoting, NULL elements and two dimensions included', async () => {
    await table('arr_insert');
    const records = Array.from({ length: 10 }, (_, i) => row(i));
    await write('arr_insert', 'insert', records);
    assert.deepEqual(await read('arr_insert'), records);
  });

  test('upsert: arrays over unnest, the last value per key wins', async () => {
    await table('arr_upsert');
    const records = [row(1), row(2), row(1, 1), row(3), row(2, 5), row(1, 2)];
    await write('arr_upsert', 'upsert', records, 3);
    assert.deepEqual(await read('arr_upsert'), [row(1, 2), row(2, 5), row(3)]);
  });

  test('changelog: inserts, updates (a key change too) and deletes of rows with array columns', async () => {
    await table('arr_changes');
    const changes = [
      { op: 'r', before: null, after: row(1) },
      { op: 'c', before: null, after: row(2) },
      { op: 'c', before: null, after: row(3) },
      { op: 'u', before: row(1), after: row(1, 7) },
      { op: 'u', before: row(2), after: row(20, 3) },
      { op: 'd', before: row(3), after: null },
    ];
    await write('arr_changes', 'changelog', changes, 2);
    assert.deepEqual(await read('arr_changes'), [row(1, 7), row(20, 3)]);
  });

  test('an array key column: rows deleted and upserted by it', async () => {
    await query('CREATE TABLE arr_key (path text[] PRIMARY KEY, size int)');
    const changes = [
      { op: 'c', before: null, after: { path: ['a', 'b "c"'], size: 1 } },
      { op: 'c', before: null, after: { path: ['a', 'd'], size: 2 } },
      { op: 'u', before: { path: ['a', 'd'], size: 2 }, after: { path: ['a', 'd'], size: 3 } },
      { op: 'd', before: { path: ['a', 'b "c"'], size: 1 }, after: null },
    ];
    const sink = new PostgresSink({ connection: server.connectionOptions(), table: 'arr_key', mode: 'changelog', key: ['path'] });
    const writer = await sink.createWriter(sinkContext());
    const committer = await sink.createCommitter(sinkContext());
    for (const c of changes) writer.write(c);
    await committer.commit(await writer.prepareCommit(1));
    await writer.close!();
    await committer.close!();
    assert.deepEqual(await query('SELECT * FROM arr_key'), [{ path: ['a', 'd'], size: 3 }]);
  });

  test('a scalar for an array column, or an array for a scalar one, names table and column', async () => {
    await table('arr_mismatch');
    const sink = new PostgresSink({ connection: server.connectionOptions(), table: 'arr_mismatch', mode: 'upsert', key: ['id'] });
    const writer = await sink.createWriter(sinkContext());
    assert.throws(
      () => writer.write({ ...row(1), scores: 5 }),
      (e: unknown) => e instanceof ColumnMismatchError && e.table === 'public.arr_mismatch' && e.column === 'scores' && e.columnType === 'int4[]' && e.fieldType === 'number',
    );
    assert.throws(
      () => writer.write({ ...row(1), note: ['x'] }),
      (e: unknown) => e instanceof ColumnMismatchError && e.column === 'note' && e.columnType === 'varchar' && e.fieldType === 'array',
    );
    await writer.abort!();
  });

  test('the array text quotes what PostgreSQL would misread', () => {
    assert.equal(pgArrayText([1, null, 'NULL', 'a"b', 'c\\d', [2, 3], true]), '{1,NULL,"NULL","a\\"b","c\\\\d",{2,3},t}');
    assert.equal(pgArrayText([]), '{}');
  });
});
