// PostgresSink against a private PostgreSQL: one prepared transaction per checkpoint and subtask,
// nothing visible before COMMIT PREPARED, idempotent commits, the three modes, the mapping checked
// against the table, refused records failing at once with nothing visible, and recovery rolling
// back what is not retained.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { PostgresSink, RecordRefusedError, ColumnMismatchError, type PostgresSinkOptions } from '../../../src/connectors/postgres/index.ts';
import { SinkError } from '../../../src/api/sink-error.ts';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';
import { assertIdempotentCommit, sinkContext } from '../../fixtures/sink-commit-idempotence.ts';

describe('PostgresSink', () => {
  let server: PostgresServer;
  let client: pg.Client;
  const query = async <R = Record<string, unknown>>(text: string, values?: unknown[]) => (await client.query(text, values)).rows as R[];
  const options = (o: Partial<PostgresSinkOptions> & { table: string }): PostgresSinkOptions => ({ connection: server.connectionOptions(), ...o });
  const rows = (table: string, order = 'id') => query(`SELECT * FROM ${table} ORDER BY ${order}`);
  const prepared = async () => (await query<{ gid: string }>('SELECT gid FROM pg_prepared_xacts ORDER BY gid')).map((r) => r.gid);

  before(async () => {
    server = await startPostgres();
    client = new pg.Client(server.connectionOptions());
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await server?.stop();
  });

  test('insert: invisible until committed, one prepared transaction named by prefix, subtask and checkpoint; commit is idempotent', async () => {
    await query('CREATE TABLE plain (id int PRIMARY KEY, name text, amount numeric(10,2), at timestamptz)');
    const sink = new PostgresSink(options({ table: 'plain', transactionIdPrefix: 'orders.v1', batchSize: 3 }));
    const at = new Date('2026-01-02T03:04:05Z');
    const records = Array.from({ length: 10 }, (_, i) => ({ id: i, name: `n${i}`, amount: i * 1.5, at }));
    const visible = await assertIdempotentCommit(sink, records, () => rows('plain'), sinkContext({ subtask: 2, parallelism: 3 }));
    assert.deepEqual(
      (visible as Array<Record<string, unknown>>).map((r) => [r.id, r.name, Number(r.amount), (r.at as Date).toISOString()]),
      records.map((r) => [r.id, r.name, r.amount, at.toISOString()]),
    );
    assert.deepEqual(await prepared(), []);
  });

  test('the pre-commit leaves a prepared transaction with the stable gid; records after the cut go to the next one', async () => {
    await query('CREATE TABLE cut (id int PRIMARY KEY)');
    const sink = new PostgresSink(options({ table: 'cut', transactionIdPrefix: 'cut' }));
    const ctx = sinkContext({ subtask: 1, parallelism: 2 });
    const writer = await sink.createWriter(ctx);
    const committer = await sink.createCommitter(ctx);
    writer.write({ id: 1 });
    const first = writer.prepareCommit(7);
    writer.write({ id: 2 });
    const second = writer.prepareCommit(8);
    const [c7, c8] = [await first, await second];
    assert.deepEqual(c7.map((c) => c.gid), ['cut-1-7']);
    assert.deepEqual(c8.map((c) => c.gid), ['cut-1-8']);
    assert.deepEqual(await prepared(), ['cut-1-7', 'cut-1-8']);
    assert.deepEqual(await rows('cut'), []);
    await committer.commit(c7);
    assert.deepEqual(await rows('cut'), [{ id: 1 }]);
    assert.deepEqual(await writer.prepareCommit(9), [], 'a checkpoint without records prepares nothing');
    // A restore that retained checkpoint 7 only: 8 was left by the failed attempt and is rolled back.
    await committer.recover!([...c7]);
    assert.deepEqual(await prepared(), []);
    assert.deepEqual(await rows('cut'), [{ id: 1 }]);
    await writer.close!();
    await committer.close!();
  });

  test('recovery rolls back only its own prefix; a fresh start rolls back all of it', async () => {
    await query('CREATE TABLE prefixes (id int PRIMARY KEY)');
    const mine = new PostgresSink(options({ table: 'prefixes' }));
    const other = new PostgresSink(options({ table: 'prefixes' }));
    const ctxMine = sinkContext({ jobName: 'job A', uid: 'sink' });
    const ctxOther = sinkContext({ jobName: 'job B', uid: 'sink' });
    const w1 = await mine.createWriter(ctxMine);
    const w2 = await other.createWriter(ctxOther);
    w1.write({ id: 1 });
    w2.write({ id: 2 });
    const [g1] = await w1.prepareCommit(3);
    const [g2] = await w2.prepareCommit(3);
    assert.notEqual(g1!.gid.split('-')[0], g2!.gid.split('-')[0], 'two jobs share a default prefix');
    assert.ok(g1!.gid.length <= 64, `gid too long for XA: ${g1!.gid}`);
    const committer = await mine.createCommitter(ctxMine);
    await committer.abortLeftovers!();
    assert.deepEqual(await prepared(), [g2!.gid]);
    const otherCommitter = await other.createCommitter(ctxOther);
    await otherCommitter.commit([g2!]);
    assert.deepEqual(await rows('prefixes'), [{ id: 2 }]);
    for (const c of [w1, w2]) await c.close!();
    for (const c of [committer, otherCommitter]) await c.close!();
  });

  test('upsert: the last value per key wins, replays change nothing', async () => {
    await query('CREATE TABLE totals (customer text PRIMARY KEY, total bigint, orders int)');
    const sink = new PostgresSink(options({ table: 'totals', mode: 'upsert', key: ['customer'], batchSize: 4 }));
    assert.equal(sink.idempotentCommits, true);
    const records = [
      { customer: 'a', total: 10, orders: 1 },
      { customer: 'b', total: 5, orders: 1 },
      { customer: 'a', total: 25, orders: 2 },
      { customer: 'a', total: 26, orders: 3 },
      { customer: 'c', total: 1, orders: 1 },
      { customer: 'b', total: 7, orders: 2 },
    ];
    await assertIdempotentCommit(sink, records, () => rows('totals', 'customer'));
    assert.deepEqual(await rows('totals', 'customer'), [
      { customer: 'a', total: '26', orders: 3 },
      { customer: 'b', total: '7', orders: 2 },
      { customer: 'c', total: '1', orders: 1 },
    ]);
  });

  test('changelog: inserts, updates (a key change too) and deletes by key; unchanged columns are left as they are', async () => {
    await query('CREATE TABLE mirror (id int PRIMARY KEY, name text, note text)');
    await query("INSERT INTO mirror VALUES (1, 'one', 'keep me'), (2, 'two', 'x')");
    const sink = new PostgresSink(options({ table: 'mirror', mode: 'changelog', key: ['id'], batchSize: 100 }));
    const changes = [
      { op: 'r', before: null, after: { id: 3, name: 'three', note: 'n3' } },
      { op: 'u', before: { id: 1, name: 'one', note: null }, after: { id: 1, name: 'uno', note: null }, unchangedColumns: ['note'] },
      { op: 'd', before: { id: 2, name: 'two', note: 'x' }, after: null },
      { op: 'c', before: null, after: { id: 4, name: 'four', note: 'n4' } },
      { op: 'u', before: { id: 4, name: 'four', note: 'n4' }, after: { id: 5, name: 'five', note: 'n4' } },
      { op: 'c', before: null, after: { id: 2, name: 'two again', note: 'y' } },
    ] as const;
    await assertIdempotentCommit(sink, changes, () => rows('mirror'));
    assert.deepEqual(await rows('mirror'), [
      { id: 1, name: 'uno', note: 'keep me' },
      { id: 2, name: 'two again', note: 'y' },
      { id: 3, name: 'three', note: 'n3' },
      { id: 5, name: 'five', note: 'n4' },
    ]);
  });

  test('a refused record fails with table, constraint and record, and nothing of its checkpoint is visible', async () => {
    await query('CREATE TABLE strict (id int PRIMARY KEY, qty int CHECK (qty > 0), code varchar(3))');
    const sink = new PostgresSink(options({ table: 'strict', batchSize: 50 }));
    const writer = await sink.createWriter(sinkContext());
    for (let i = 0; i < 20; i++) writer.write({ id: i, qty: i === 13 ? -1 : 1, code: 'abc' });
    const failure = await Promise.resolve(writer.prepareCommit(1)).then(() => undefined, (e: unknown) => e);
    assert.ok(failure instanceof RecordRefusedError, String(failure));
    assert.equal(failure.code, 'RECORD_REFUSED');
    assert.equal(failure.unrecoverable, true);
    assert.equal(failure.table, 'public.strict');
    assert.equal(failure.constraint, 'strict_qty_check');
    assert.deepEqual(failure.record, { id: 13, qty: -1, code: 'abc' });
    assert.match(failure.message, /table public\.strict refused record \{"id":13,"qty":-1,"code":"abc"\} \(constraint strict_qty_check\)/);
    await assert.rejects(Promise.resolve(writer.ready?.()), RecordRefusedError);
    await writer.abort!();
    assert.deepEqual(await rows('strict'), []);
    assert.deepEqual(await prepared(), []);

    const tooLong = await sink.createWriter(sinkContext());
    tooLong.write({ id: 1, qty: 1, code: 'abcd' });
    const e = await Promise.resolve(tooLong.prepareCommit(2)).then(() => undefined, (x: unknown) => x);
    assert.ok(e instanceof RecordRefusedError, String(e));
    assert.equal(e.constraint, undefined);
    assert.match(e.message, /too long/);
    await tooLong.abort!();
  });

  test('insert mode streams a transaction through COPYs spanning many batches: every row lands once, and a duplicate of an earlier batch is named exactly', async () => {
    await query('CREATE TABLE stream (id int PRIMARY KEY, name text, at timestamptz, note text)');
    const sink = new PostgresSink(options({ table: 'stream', batchSize: 100 }));
    const writer = await sink.createWriter(sinkContext());
    const committer = await sink.createCommitter(sinkContext());
    const base = Date.UTC(2026, 0, 1, 23, 59, 0);
    // ~6 MiB of rows: more than one COPY of the stream, escapes and NULLs included.
    const n = 60_000;
    const record = (i: number) => ({ id: i, name: `n${i}\t\\${'x'.repeat(80)}`, at: new Date(base + i * 7), note: i % 3 === 0 ? null : `line\n${i}` });
    for (let i = 0; i < n; i++) {
      writer.write(record(i));
      const ready = writer.ready?.();
      if (ready) await ready;
    }
    await committer.commit(await writer.prepareCommit(1));
    const [summary] = await query<{ n: number; ids: number; last: Date; nulls: number }>("SELECT count(*)::int AS n, count(DISTINCT id)::int AS ids, max(at) AS last, count(*) FILTER (WHERE note IS NULL)::int AS nulls FROM stream");
    assert.deepEqual({ ...summary, last: summary!.last.toISOString() }, { n, ids: n, last: new Date(base + (n - 1) * 7).toISOString(), nulls: n / 3 });
    assert.deepEqual(await query('SELECT id, name, at, note FROM stream WHERE id IN (1, 59999) ORDER BY id'), [record(1), record(59_999)]);

    const dup = await sink.createWriter(sinkContext());
    for (let i = 0; i < 250; i++) dup.write({ id: n + i, name: 'again', at: null, note: null });
    dup.write({ id: n + 17, name: 'the duplicate', at: null, note: null });
    const e = await Promise.resolve(dup.prepareCommit(2)).then(() => undefined, (x: unknown) => x);
    assert.ok(e instanceof RecordRefusedError, String(e));
    assert.equal(e.constraint, 'stream_pkey');
    assert.deepEqual(e.record, { id: n + 17, name: 'the duplicate', at: null, note: null });
    await dup.abort!();
    await writer.close!();
    await committer.close!();
    assert.equal((await query('SELECT count(*)::int AS n FROM stream'))[0]!.n, n);
    assert.deepEqual(await prepared(), []);
  });

  test('the mapping is checked against the table: a missing column, a missing table, a field of the wrong type, a key without a unique index', async () => {
    await query('CREATE TABLE typed (id int PRIMARY KEY, name text, flag bool)');
    const missing = new PostgresSink(options({ table: 'typed', columns: { id: 'id', label: 'name' } }));
    const e1 = await Promise.resolve(missing.createWriter(sinkContext())).then(() => undefined, (e: unknown) => e);
    assert.ok(e1 instanceof ColumnMismatchError, String(e1));
    assert.equal(e1.column, 'label');
    assert.equal(e1.field, 'name');
    assert.match(e1.message, /table public\.typed: it has no column label \(for record field name\)/);

    const nowhere = new PostgresSink(options({ table: 'nowhere' }));
    await assert.rejects(Promise.resolve(nowhere.createWriter(sinkContext())), /table public\.nowhere does not exist/);

    const writer = await new PostgresSink(options({ table: 'typed' })).createWriter(sinkContext());
    assert.throws(
      () => writer.write({ id: 1, name: 'x', flag: 'yes' }),
      (e: unknown) => e instanceof ColumnMismatchError && e.column === 'flag' && e.field === 'flag' && e.columnType === 'bool' && e.fieldType === 'string' && e.unrecoverable,
    );
    await writer.abort!();

    const noIndex = new PostgresSink(options({ table: 'typed', mode: 'upsert', key: ['name'] }));
    const e2 = await Promise.resolve(noIndex.createWriter(sinkContext())).then(() => undefined, (e: unknown) => e);
    assert.ok(e2 instanceof SinkError && e2.code === 'TARGET_UNSUPPORTED', String(e2));
    assert.match(e2.message, /no unique index on exactly \(name\)/);
  });

  test('max_prepared_transactions = 0: a clear error naming the server and the setting', async () => {
    const off = await startPostgres({ settings: { max_prepared_transactions: 0 } });
    try {
      const sink = new PostgresSink({ connection: off.connectionOptions(), table: 'anything' });
      const e = await Promise.resolve(sink.createWriter(sinkContext())).then(() => undefined, (x: unknown) => x);
      assert.ok(e instanceof SinkError, String(e));
      assert.equal(e.code, 'TARGET_UNSUPPORTED');
      assert.equal(e.unrecoverable, true);
      assert.match(e.message, new RegExp(`server 127\\.0\\.0\\.1:${off.port} has max_prepared_transactions = 0.*set max_prepared_transactions in postgresql\\.conf`));
    } finally {
      await off.stop();
    }
  });
  test('abort while a statement waits for a row lock of the prepared transaction: the session ends at once, the prepared one stays for recovery', { timeout: 60_000 }, async () => {
    await query('CREATE TABLE locked (id int PRIMARY KEY, v int)');
    const sink = new PostgresSink(options({ table: 'locked', mode: 'upsert', key: ['id'], transactionIdPrefix: 'locked' }));
    const ctx = sinkContext({ subtask: 0, parallelism: 1 });
    const writer = await sink.createWriter(ctx);
    const committer = await sink.createCommitter(ctx);
    writer.write({ id: 1, v: 1 });
    const c1 = await writer.prepareCommit(1);
    // The next checkpoint's transaction writes the row the prepared one holds: it waits.
    writer.write({ id: 1, v: 2 });
    writer.flush!();
    for (let i = 0; i < 500; i++) {
      const waiting = await query("SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'weir %' AND wait_event_type = 'Lock'");
      if (waiting.length > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal((await query("SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'weir %' AND wait_event_type = 'Lock'")).length, 1, 'the writer waits for the lock');
    // A failed attempt's abort: without ending the session from the server's side this never returns (lock_timeout is 0).
    await writer.abort!();
    assert.deepEqual(await query("SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'weir %' AND wait_event_type = 'Lock'"), [], 'the waiting session is gone');
    assert.deepEqual(await prepared(), ['locked-0-1'], 'the prepared transaction is the next attempt\'s recovery\'s');
    await committer.recover!([...c1]);
    await committer.commit(c1);
    assert.deepEqual(await rows('locked'), [{ id: 1, v: 1 }]);
    await committer.close!();
  });
});
