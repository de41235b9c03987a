// MySqlSink's dead-letter output against a private MariaDB: records the table refuses (a CHECK
// constraint, a value too long in strict mode, a duplicate key in insert mode) are left out of
// the checkpoint's XA transaction and reported with table, constraint, SQLSTATE, errno and reason,
// while every other record of that checkpoint commits; without the option a refusal fails at once.
// In a job with injected failures, the table and the dead-letter stream together hold every
// record exactly once, compared with an independent computation, and XA RECOVER is empty.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { createLogger, defineJob, executeJob, OutputTag } from '../../../src/index.ts';
import { MySqlSink, type DeadLetter, type MySqlSinkOptions } from '../../../src/connectors/mysql/index.ts';
import { RecordRefusedError } from '../../../src/connectors/postgres/index.ts';
import { CollectionSource } from '../../../src/connectors/collection/index.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';
import { sinkContext } from '../../fixtures/sink-commit-idempotence.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'numbers-to-mysql.ts');

describe('MySqlSink dead-letter output', () => {
  let server: MariaDbServer;
  let conn: mysql.Connection;
  let root: string;
  const query = async <R = Record<string, unknown>>(text: string) => (await conn.query(text))[0] as R[];
  const options = <T>(o: Partial<MySqlSinkOptions<T>> & { table: string }): MySqlSinkOptions<T> => ({ connection: { ...server.connectionOptions(), database: 'sinks' }, ...o });
  const prepared = async () => (await query<{ data: string }>('XA RECOVER')).map((r) => String(r.data));

  before(async () => {
    server = await startMariaDb();
    conn = await mysql.createConnection(server.connectionOptions());
    await conn.query('CREATE DATABASE sinks');
    await conn.query('USE sinks');
    root = makeTempDir('mysql-dead-letters');
  });
  after(async () => {
    await conn?.end();
    await server?.stop();
    if (root) removeDir(root);
  });

  test('refused records are reported with table, constraint, SQLSTATE, errno and reason; the rest of the XA transaction commits', async () => {
    await query('CREATE TABLE dl (id int PRIMARY KEY, qty int, code varchar(3), CONSTRAINT qty_positive CHECK (qty > 0))');
    const tag = new OutputTag<DeadLetter<{ id: number; qty: number; code: string }>>('refused');
    const sink = new MySqlSink(options({ table: 'dl', batchSize: 8, deadLetterOutput: tag }));
    assert.equal(sink.deadLetterOutput, tag);
    const writer = await sink.createWriter(sinkContext());
    const committer = await sink.createCommitter(sinkContext());
    const records = Array.from({ length: 20 }, (_, i) => ({ id: i, qty: i === 13 ? -1 : 1, code: i === 15 ? 'abcd' : 'abc' }));
    records.splice(5, 0, { id: 4, qty: 2, code: 'dup' });
    for (const r of records) {
      writer.write(r);
      await writer.ready?.();
    }
    const committables = await writer.prepareCommit(1);
    const letters = writer.deadLetters!(1);
    assert.deepEqual(
      letters.map((l) => [l.record, l.table, l.constraint, l.code, l.errno]),
      [
        [{ id: 4, qty: 2, code: 'dup' }, 'sinks.dl', 'PRIMARY', '23000', 1062],
        [{ id: 13, qty: -1, code: 'abc' }, 'sinks.dl', 'qty_positive', '23000', 4025],
        [{ id: 15, qty: 1, code: 'abcd' }, 'sinks.dl', undefined, '22001', 1406],
      ],
    );
    assert.match(letters[0]!.reason, /Duplicate entry '4'/);
    assert.match(letters[1]!.reason, /CONSTRAINT `qty_positive` failed/);
    assert.match(letters[2]!.reason, /Data too long for column 'code'/);
    assert.match(letters[0]!.target, new RegExp(`MySQL 127\\.0\\.0\\.1:${server.port} database sinks table dl`));
    assert.deepEqual(writer.deadLetters!(1), [], 'dead letters are taken once');
    assert.deepEqual(await query('SELECT id FROM dl'), [], 'nothing is visible before XA COMMIT');
    await committer.commit(committables);
    const ids = (await query<{ id: number }>('SELECT id FROM dl ORDER BY id')).map((r) => r.id);
    assert.deepEqual(ids, Array.from({ length: 20 }, (_, i) => i).filter((i) => i !== 13 && i !== 15));
    assert.equal((await query<{ code: string }>('SELECT code FROM dl WHERE id = 4'))[0]!.code, 'abc', 'the refused duplicate left the first row as it was');

    writer.write({ id: 100, qty: 1, code: 'ok' });
    const next = await writer.prepareCommit(2);
    assert.deepEqual(writer.deadLetters!(2), []);
    await committer.commit(next);
    assert.deepEqual(await prepared(), []);
    await writer.close!();
    await committer.close!();
  });

  test('without the option a refusal still fails at once, naming table, constraint and record', async () => {
    await query('CREATE TABLE dl_strict (id int PRIMARY KEY, qty int, CONSTRAINT qty_nonneg CHECK (qty >= 0))');
    const sink = new MySqlSink(options({ table: 'dl_strict', transactionIdPrefix: 'dl-strict' }));
    const writer = await sink.createWriter(sinkContext());
    for (let i = 0; i < 6; i++) writer.write({ id: i, qty: i === 4 ? -4 : i });
    const e = await Promise.resolve(writer.prepareCommit(1)).then(() => undefined, (x: unknown) => x);
    assert.ok(e instanceof RecordRefusedError, String(e));
    assert.equal(e.table, 'sinks.dl_strict');
    assert.equal(e.constraint, 'qty_nonneg');
    assert.deepEqual(e.record, { id: 4, qty: -4 });
    await writer.abort!();
    assert.deepEqual(await query('SELECT id FROM dl_strict'), []);
    assert.deepEqual(await prepared(), []);
  });

  test('changelog: the changes of one refused record are left out together (an update that moves the key)', async () => {
    await query('CREATE TABLE dl_mirror (id int PRIMARY KEY, name varchar(5) NOT NULL)');
    await query("INSERT INTO dl_mirror VALUES (1, 'one'), (2, 'two')");
    const tag = new OutputTag<DeadLetter>('refused-changes');
    const sink = new MySqlSink(options({ table: 'dl_mirror', mode: 'changelog', key: ['id'], deadLetterOutput: tag }));
    const writer = await sink.createWriter(sinkContext());
    const committer = await sink.createCommitter(sinkContext());
    const moved = { op: 'u', before: { id: 1, name: 'one' }, after: { id: 10, name: 'far too long' } };
    writer.write(moved);
    writer.write({ op: 'u', before: { id: 2, name: 'two' }, after: { id: 2, name: 'TWO' } });
    writer.write({ op: 'c', before: null, after: { id: 3, name: null } });
    writer.write({ op: 'c', before: null, after: { id: 4, name: 'four' } });
    const committables = await writer.prepareCommit(1);
    assert.deepEqual(writer.deadLetters!(1).map((l) => [l.record, l.code, l.errno]), [
      [moved, '22001', 1406],
      [{ op: 'c', before: null, after: { id: 3, name: null } }, '23000', 1048],
    ]);
    await committer.commit(committables);
    assert.deepEqual(await query('SELECT * FROM dl_mirror ORDER BY id'), [
      { id: 1, name: 'one' },
      { id: 2, name: 'TWO' },
      { id: 4, name: 'four' },
    ]);
    assert.deepEqual(await prepared(), []);
    await writer.close!();
    await committer.close!();
  });

  test("getSideOutput after sinkTo takes only the sink's own dead-letter tag", async () => {
    const tag = new OutputTag<DeadLetter>('mine');
    const connection = { host: 'h', port: 3306, user: 'u', password: '', database: 'd' };
    let checked = false;
    await defineJob((env) => {
      const written = env.fromSource(new CollectionSource([{ id: 1 }]), { name: 'Source' }).sinkTo(new MySqlSink({ connection, table: 't', deadLetterOutput: tag }));
      assert.doesNotThrow(() => written.getSideOutput(tag));
      assert.throws(() => written.getSideOutput(new OutputTag('other')), /getSideOutput\(other\) after sinkTo takes the sink's dead letters/);
      const plain = env.fromSource(new CollectionSource([{ id: 1 }]), { name: 'Source 2' }).sinkTo(new MySqlSink({ connection, table: 't' }));
      assert.throws(() => plain.getSideOutput(tag), /deadLetterOutput/);
      checked = true;
    }).plan([]);
    assert.ok(checked);
  });

  test('in a job with 5 injected failures: every running count is in the table or among the dead letters, exactly once; XA RECOVER is empty', async () => {
    const total = 4000;
    await query('CREATE TABLE dl_counts (word varchar(10), n int, PRIMARY KEY (word, n), CONSTRAINT no_sevens CHECK (n % 10 <> 7))');
    const counts = new Map<string, number>();
    const all: string[] = [];
    for (let i = 0; i < total; i++) {
      const w = `w${i % 97}`;
      const n = (counts.get(w) ?? 0) + 1;
      counts.set(w, n);
      all.push(`${w} ${n}`);
    }
    const refused = all.filter((r) => Number(r.split(' ')[1]) % 10 === 7);
    const kept = all.filter((r) => Number(r.split(' ')[1]) % 10 !== 7);
    assert.ok(refused.length > 0 && kept.length > 0);

    const events = new JobEvents();
    const output = join(root, 'dead-letters');
    const result = await executeJob({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--table', 'dl_counts', '--total', String(total), '--rate', '4000', '--checkpoint-interval', '100', '--dead-letters', output],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 60,
        'restart-strategy.fixed-delay.delay': '200 ms',
      },
      faults: { failures: 5, seed: 17, minRecords: 500, maxRecords: 2000 },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    assert.equal(result.injectedFailures, 5);
    const rows = (await query<{ word: string; n: number }>('SELECT word, n FROM dl_counts')).map((r) => `${r.word} ${r.n}`).sort();
    assert.deepEqual(rows, kept.sort());
    const letters = readCommittedLines(output).sort();
    assert.equal(letters.length, refused.length, `${letters.length} dead letters for ${refused.length} refused rows`);
    assert.deepEqual(letters, refused.map((r) => `${r} no_sevens 4025`).sort());
    assert.deepEqual(await prepared(), []);
  });
});
