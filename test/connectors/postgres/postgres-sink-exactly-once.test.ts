// Exactly-once into PostgreSQL: a running word count written by PostgresSink in insert mode (each
// running count a row, so a duplicate or a loss shows), with injected task failures, and with the
// server restarted mid-run. The table must equal an independent computation row for row, and no
// prepared transaction may be left.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { createLogger, executeJob } from '../../../src/index.ts';
import { JobEvents, makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'numbers-to-postgres.ts');
const TOTAL = 12_000;

/** Every running count of the word count over 0..total-1, as `word n` rows, sorted: computed here, not by weir. */
function expectedCountRows(total: number): string[] {
  const counts = new Map<string, number>();
  for (let i = 0; i < total; i++) counts.set(`w${i % 97}`, (counts.get(`w${i % 97}`) ?? 0) + 1);
  const rows: string[] = [];
  for (const [w, c] of counts) for (let n = 1; n <= c; n++) rows.push(`${w} ${n}`);
  return rows.sort();
}

describe('PostgresSink exactly-once', () => {
  let server: PostgresServer;
  let client: pg.Client;
  let root: string;
  const expected = expectedCountRows(TOTAL);

  before(async () => {
    server = await startPostgres();
    client = connected();
    await client.connect();
    root = makeTempDir('postgres-sink-eo');
  });
  after(async () => {
    await client?.end().catch(() => {});
    await server?.stop();
    removeDir(root);
  });

  /** The checking client: the server's restart ends its connection, which is then replaced. */
  function connected(): pg.Client {
    const c = new pg.Client(server.connectionOptions());
    c.on('error', () => {});
    return c;
  }
  async function table(name: string): Promise<string[]> {
    const rows = (await client.query(`SELECT word, n FROM ${name}`)).rows as Array<{ word: string; n: number }>;
    return rows.map((r) => `${r.word} ${r.n}`).sort();
  }
  async function prepared(): Promise<string[]> {
    return ((await client.query('SELECT gid FROM pg_prepared_xacts')).rows as Array<{ gid: string }>).map((r) => r.gid);
  }
  function run(name: string, events: JobEvents, extra: { faults?: { failures: number; seed: number; minRecords: number; maxRecords: number } } = {}) {
    return executeJob({
      job: JOB,
      args: ['--pg-port', String(server.port), '--pg-password', server.password, '--table', name, '--total', String(TOTAL), '--rate', '5000', '--checkpoint-interval', '100'],
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

  test('5 injected failures: the table equals the independent computation, no prepared transaction left', async () => {
    await client.query('CREATE TABLE counts_faults (word text, n int, PRIMARY KEY (word, n))');
    const events = new JobEvents();
    const result = await run('counts_faults', events, { faults: { failures: 5, seed: 31, minRecords: 800, maxRecords: 3000 } });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    assert.equal(result.injectedFailures, 5);
    assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
    const rows = await table('counts_faults');
    assert.equal(rows.length, expected.length, `${rows.length} rows for ${expected.length} running counts`);
    assert.deepEqual(rows, expected);
    assert.deepEqual(await prepared(), []);
  });

  test('the server down when the job starts: the job restarts by its strategy, each failure names the server; once it is up the table is exact', async (t) => {
    await client.query('CREATE TABLE counts_down (word text, n int, PRIMARY KEY (word, n))');
    await client.end().catch(() => {});
    await server.shutdown();
    const events = new JobEvents();
    const result = run('counts_down', events);
    try {
      await events.waitFor('two restarts while the server is down', () => events.restarts.length >= 2, 60_000);
    } finally {
      await server.start();
    }
    const causes = events.restarts.map((r) => r.cause);
    t.diagnostic(`first failure: ${causes[0]}`);
    for (const cause of causes.slice(0, 2)) assert.match(cause, new RegExp(`127\\.0\\.0\\.1:${server.port}`), `the failure names the server: ${cause}`);
    client = connected();
    await client.connect();
    const r = await result;
    assert.equal(r.status, 'FINISHED', `job did not finish: ${r.error?.message}\n${events.describe()}`);
    assert.deepEqual(await table('counts_down'), expected);
    assert.deepEqual(await prepared(), []);
  });

  test('the server restarted mid-run: the job fails over or waits, and the table is exact', async () => {
    await client.query('CREATE TABLE counts_restart (word text, n int, PRIMARY KEY (word, n))');
    const events = new JobEvents();
    let restarting: Promise<void> | undefined;
    events.onCompleted = (c) => {
      if (c.id === 3) restarting ??= server.restart();
    };
    const result = await run('counts_restart', events);
    assert.ok(restarting, 'the job ended before the third checkpoint');
    await restarting;
    await client.end().catch(() => {});
    client = connected();
    await client.connect();
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}\n${events.describe()}`);
    const rows = await table('counts_restart');
    assert.equal(rows.length, expected.length, `${rows.length} rows for ${expected.length} running counts`);
    assert.deepEqual(rows, expected);
    assert.deepEqual(await prepared(), []);
  });
});
