// MySqlSink against a private MariaDB: one XA transaction per checkpoint and subtask, nothing
// visible before XA COMMIT, idempotent commits, the three modes, refused records failing at once
// with nothing visible, recovery by XA RECOVER. (Jobs with failures: mysql-sink-exactly-once.long.test.ts, test:long.)
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import mysql from 'mysql2/promise';
import { MySqlSink, type MySqlSinkOptions } from '../../../src/connectors/mysql/index.ts';
import { RecordRefusedError } from '../../../src/connectors/postgres/index.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';
import { assertIdempotentCommit, sinkContext } from '../../fixtures/sink-commit-idempotence.ts';

describe('MySqlSink', () => {
  let server: MariaDbServer;
  let conn: mysql.Connection;
  const options = (o: Partial<MySqlSinkOptions> & { table: string }): MySqlSinkOptions => ({ connection: { ...server.connectionOptions(), database: 'sinks' }, ...o });
  const rows = async (table: string, order = 'id') => (await conn.query(`SELECT * FROM ${table} ORDER BY ${order}`))[0] as Array<Record<string, unknown>>;
  const prepared = async () => ((await conn.query('XA RECOVER'))[0] as Array<{ data: string }>).map((r) => String(r.data));

  before(async () => {
    server = await startMariaDb();
    conn = await mysql.createConnection(server.connectionOptions());
    await conn.query('CREATE DATABASE sinks');
    await conn.query('USE sinks');
  });
  after(async () => {
    await conn?.end();
    await server?.stop();
  });

  test('insert: invisible until XA COMMIT, commit is idempotent, nothing left prepared', async () => {
    await conn.query('CREATE TABLE plain (id int PRIMARY KEY, name varchar(20), amount decimal(10,2))');
    const sink = new MySqlSink(options({ table: 'plain', batchSize: 3 }));
    const records = Array.from({ length: 10 }, (_, i) => ({ id: i, name: `n${i}`, amount: i * 1.5 }));
    const visible = (await assertIdempotentCommit(sink, records, () => rows('plain'))) as Array<Record<string, unknown>>;
    assert.deepEqual(visible.map((r) => [r.id, r.name, Number(r.amount)]), records.map((r) => [r.id, r.name, r.amount]));
    assert.deepEqual(await prepared(), []);
  });

  test('upsert and changelog by key; unchanged columns left as they are', async () => {
    await conn.query('CREATE TABLE totals (customer varchar(10) PRIMARY KEY, total bigint)');
    const upsert = new MySqlSink(options({ table: 'totals', mode: 'upsert', key: ['customer'] }));
    assert.equal(upsert.idempotentCommits, true);
    await assertIdempotentCommit(upsert, [{ customer: 'a', total: 1 }, { customer: 'b', total: 2 }, { customer: 'a', total: 3 }], () => rows('totals', 'customer'));
    assert.deepEqual((await rows('totals', 'customer')).map((r) => [r.customer, Number(r.total)]), [['a', 3], ['b', 2]]);

    await conn.query('CREATE TABLE mirror (id int PRIMARY KEY, name text, note text)');
    await conn.query("INSERT INTO mirror VALUES (1, 'one', 'keep me'), (2, 'two', 'x')");
    const changelog = new MySqlSink(options({ table: 'mirror', mode: 'changelog', key: ['id'] }));
    const changes = [
      { op: 'r', before: null, after: { id: 3, name: 'three', note: 'n3' } },
      { op: 'u', before: { id: 1, name: 'one', note: null }, after: { id: 1, name: 'uno', note: null }, unchangedColumns: ['note'] },
      { op: 'd', before: { id: 2, name: 'two', note: 'x' }, after: null },
      { op: 'c', before: null, after: { id: 4, name: 'four', note: 'n4' } },
      { op: 'u', before: { id: 4, name: 'four', note: 'n4' }, after: { id: 5, name: 'five', note: 'n4' } },
    ];
    await assertIdempotentCommit(changelog, changes, () => rows('mirror'));
    assert.deepEqual(await rows('mirror'), [
      { id: 1, name: 'uno', note: 'keep me' },
      { id: 3, name: 'three', note: 'n3' },
      { id: 5, name: 'five', note: 'n4' },
    ]);
  });

  test('a refused record names table, key and record; nothing of its checkpoint is visible; recovery rolls back what is not retained', async () => {
    await conn.query('CREATE TABLE strict (id int PRIMARY KEY, code varchar(3))');
    const sink = new MySqlSink(options({ table: 'strict', transactionIdPrefix: 'strict' }));
    const writer = await sink.createWriter(sinkContext());
    for (let i = 0; i < 10; i++) writer.write({ id: i === 7 ? 3 : i, code: 'abc' });
    const e = await Promise.resolve(writer.prepareCommit(1)).then(() => undefined, (x: unknown) => x);
    assert.ok(e instanceof RecordRefusedError, String(e));
    assert.equal(e.table, 'sinks.strict');
    assert.equal(e.constraint, 'PRIMARY');
    assert.deepEqual(e.record, { id: 3, code: 'abc' });
    await writer.abort!();
    assert.deepEqual(await rows('strict'), []);

    const w = await sink.createWriter(sinkContext());
    const committer = await sink.createCommitter(sinkContext());
    w.write({ id: 1, code: 'a' });
    const [kept] = await w.prepareCommit(4);
    w.write({ id: 2, code: 'b' });
    await w.prepareCommit(5);
    assert.equal((await prepared()).length, 2);
    await committer.recover!([kept!]);
    assert.equal((await prepared()).length, 1);
    await committer.commit([kept!]);
    assert.deepEqual(await prepared(), []);
    assert.deepEqual(await rows('strict'), [{ id: 1, code: 'a' }]);
    await w.close!();
    await committer.close!();
  });
  test('abort while a statement waits for a row lock of the prepared XA transaction: the session is killed at once, the prepared one stays for recovery', { timeout: 60_000 }, async () => {
    await conn.query('CREATE TABLE locked (id int PRIMARY KEY, v int)');
    // Sessions would otherwise give up waiting after 50 s by themselves.
    await conn.query('SET GLOBAL innodb_lock_wait_timeout = 3600');
    try {
      const sink = new MySqlSink(options({ table: 'locked', mode: 'upsert', key: ['id'], transactionIdPrefix: 'locked' }));
      const ctx = sinkContext({ subtask: 0, parallelism: 1 });
      const writer = await sink.createWriter(ctx);
      const committer = await sink.createCommitter(ctx);
      writer.write({ id: 1, v: 1 });
      const c1 = await writer.prepareCommit(1);
      writer.write({ id: 1, v: 2 });
      writer.flush!();
      // INNODB_TRX lists the waiting transaction late (seconds): the process list shows its statement at once.
      const lockWaits = async () => ((await conn.query("SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'INSERT INTO `sinks`.`locked`%'"))[0] as unknown[]).length;
      for (let i = 0; i < 500 && (await lockWaits()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(await lockWaits(), 1, 'the writer waits for the lock');
      await writer.abort!();
      // KILL answers before the killed thread has left the process list: a moment, not a lock wait's 3,600 s.
      for (let i = 0; i < 100 && (await lockWaits()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
      assert.equal(await lockWaits(), 0, 'the waiting session is gone');
      assert.equal((await prepared()).length, 1, 'the prepared XA transaction is the next attempt\'s recovery\'s');
      await committer.recover!([...c1]);
      await committer.commit(c1);
      assert.deepEqual(await rows('locked'), [{ id: 1, v: 1 }]);
      await committer.close!();
    } finally {
      await conn.query('SET GLOBAL innodb_lock_wait_timeout = 50');
    }
  });
});
