// MySqlSink against a private MariaDB: one XA transaction per checkpoint and subtask, nothing
// visible before XA COMMIT, idempotent commits, the three modes, refused records failing at once
// with nothing visible, recovery by XA RECOVER; and a running count with 5 injected failures:
// the table equals an independent computation and XA RECOVER is empty.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { MySqlSink, type MySqlSinkOptions } from '../../../src/connectors/mysql/index.ts';
import { RecordRefusedError } from '../../../src/connectors/postgres/index.ts';
import { createLogger, executeJob } from '../../../src/index.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';
import { JobEvents, makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { assertIdempotentCommit, sinkContext } from '../../fixtures/sink-commit-idempotence.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'numbers-to-mysql.ts');

describe('MySqlSink', () => {
  let server: MariaDbServer;
  let conn: mysql.Connection;
  let root: string;
  const options = (o: Partial<MySqlSinkOptions> & { table: string }): MySqlSinkOptions => ({ connection: { ...server.connectionOptions(), database: 'sinks' }, ...o });
  const rows = async (table: string, order = 'id') => (await conn.query(`SELECT * FROM ${table} ORDER BY ${order}`))[0] as Array<Record<string, unknown>>;
  const prepared = async () => ((await conn.query('XA RECOVER'))[0] as Array<{ data: string }>).map((r) => String(r.data));

  before(async () => {
    server = await startMariaDb();
    conn = await mysql.createConnection(server.connectionOptions());
    await conn.query('CREATE DATABASE sinks');
    await conn.query('USE sinks');
    root = makeTempDir('mysql-sink');
  });
  after(async () => {
    await conn?.end();
    await server?.stop();
    removeDir(root);
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

  test('5 injected failures: the table equals the independent computation, XA RECOVER empty', async () => {
    await conn.query('CREATE TABLE counts (word varchar(8), n int, PRIMARY KEY (word, n))');
    const total = 12_000;
    const events = new JobEvents();
    const result = await executeJob({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--total', String(total), '--rate', '5000'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 30,
        'restart-strategy.fixed-delay.delay': '100 ms',
      },
      faults: { failures: 5, seed: 47, minRecords: 800, maxRecords: 3000 },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    assert.equal(result.injectedFailures, 5);
    assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
    const counts = new Map<string, number>();
    for (let i = 0; i < total; i++) counts.set(`w${i % 97}`, (counts.get(`w${i % 97}`) ?? 0) + 1);
    const expected = [...counts].flatMap(([w, c]) => Array.from({ length: c }, (_, k) => `${w} ${k + 1}`)).sort();
    const actual = ((await conn.query('SELECT word, n FROM counts'))[0] as Array<{ word: string; n: number }>).map((r) => `${r.word} ${r.n}`).sort();
    assert.equal(actual.length, expected.length);
    assert.deepEqual(actual, expected);
    assert.deepEqual(await prepared(), []);
  });
});
