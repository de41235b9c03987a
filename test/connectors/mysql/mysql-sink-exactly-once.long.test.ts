// Exactly-once into MariaDB: a running word count written by MySqlSink in insert mode (each running
// count a row, so a duplicate or a loss shows), with injected task failures, and with the private
// server restarted mid-run (stopped and started again on the same data directory and port). The
// table must equal an independent computation row for row, and XA RECOVER must be empty.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { createLogger, executeJob } from '../../../src/index.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';
import { JobEvents, makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'numbers-to-mysql.ts');
const TOTAL = 12_000;

/** Every running count of the word count over 0..total-1, as `word n` rows, sorted: computed here, not by weir. */
function expectedCountRows(total: number): string[] {
  const counts = new Map<string, number>();
  for (let i = 0; i < total; i++) counts.set(`w${i % 97}`, (counts.get(`w${i % 97}`) ?? 0) + 1);
  return [...counts].flatMap(([w, c]) => Array.from({ length: c }, (_, k) => `${w} ${k + 1}`)).sort();
}

describe('MySqlSink exactly-once', () => {
  let server: MariaDbServer;
  let conn: mysql.Connection;
  let root: string;
  const expected = expectedCountRows(TOTAL);

  before(async () => {
    server = await startMariaDb();
    conn = await connected();
    await conn.query('CREATE DATABASE sinks');
    root = makeTempDir('mysql-sink-eo');
  });
  after(async () => {
    await conn?.end().catch(() => {});
    await server?.stop();
    removeDir(root);
  });

  /** The checking connection: the server's restart ends it, and it is then replaced. */
  async function connected(): Promise<mysql.Connection> {
    const c = await mysql.createConnection(server.connectionOptions());
    c.on('error', () => {});
    return c;
  }
  async function table(name: string): Promise<string[]> {
    const [rows] = await conn.query(`SELECT word, n FROM sinks.${name}`);
    return (rows as Array<{ word: string; n: number }>).map((r) => `${r.word} ${r.n}`).sort();
  }
  async function prepared(): Promise<string[]> {
    return ((await conn.query('XA RECOVER'))[0] as Array<{ data: string }>).map((r) => String(r.data));
  }
  function run(name: string, events: JobEvents, extra: { faults?: { failures: number; seed: number; minRecords: number; maxRecords: number } } = {}) {
    return executeJob({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--table', name, '--total', String(TOTAL), '--rate', '5000', '--checkpoint-interval', '100'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, name),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 60,
        'restart-strategy.fixed-delay.delay': '200 ms',
      },
      ...(extra.faults ? { faults: extra.faults } : {}),
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
  }

  test('5 injected failures: the table equals the independent computation, XA RECOVER empty', async () => {
    await conn.query('CREATE TABLE sinks.counts_faults (word varchar(8), n int, PRIMARY KEY (word, n))');
    const events = new JobEvents();
    const result = await run('counts_faults', events, { faults: { failures: 5, seed: 47, minRecords: 800, maxRecords: 3000 } });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    assert.equal(result.injectedFailures, 5);
    assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
    const rows = await table('counts_faults');
    assert.equal(rows.length, expected.length, `${rows.length} rows for ${expected.length} running counts`);
    assert.deepEqual(rows, expected);
    assert.deepEqual(await prepared(), []);
  });

  test('the server restarted mid-run: the job fails over or waits, and the table is exact', async (t) => {
    await conn.query('CREATE TABLE sinks.counts_restart (word varchar(8), n int, PRIMARY KEY (word, n))');
    const events = new JobEvents();
    let restarting: Promise<void> | undefined;
    let rowsAtRestart = -1;
    events.onCompleted = (c) => {
      if (c.id !== 3 || restarting) return;
      restarting = (async () => {
        rowsAtRestart = (await table('counts_restart')).length;
        await server.restart();
      })();
    };
    const result = await run('counts_restart', events);
    assert.ok(restarting, 'the job ended before the third checkpoint');
    await restarting;
    await conn.end().catch(() => {});
    conn = await connected();
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    assert.ok(rowsAtRestart >= 0 && rowsAtRestart < expected.length, `the restart was not mid-run: ${rowsAtRestart} of ${expected.length} rows committed`);
    t.diagnostic(`rows committed at the restart: ${rowsAtRestart}; job restarts: ${events.restarts.length} (${events.restarts.map((r) => r.cause.split('\n')[0]).join('; ')})`);
    const rows = await table('counts_restart');
    assert.equal(rows.length, expected.length, `${rows.length} rows for ${expected.length} running counts`);
    assert.deepEqual(rows, expected);
    assert.deepEqual(await prepared(), []);
  });
});
