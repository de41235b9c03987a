// PostgresSink across processes: `weir run` SIGKILLed twice while input keeps coming and resumed
// from the newest checkpoint each time (the killed runs leave prepared transactions that the next
// run must commit or roll back by their stable gids: the job id changes on every run), and a
// stop-with-savepoint resumed from the savepoint. The table must equal an independent computation
// row for row, and pg_prepared_xacts must be empty at the end.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import pg from 'pg';
import { killAndResume, resumeToEnd } from '../../fixtures/kill-and-resume.ts';
import { makeTempDir, removeDir, REPO_ROOT, sleep } from '../../fixtures/recovery-helpers.ts';
import { startPostgres, type PostgresServer } from '../../fixtures/postgres-server.ts';
import { completedCheckpoints, spawnWeir, weir, weirEnv, type WeirProcess } from '../../fixtures/weir-process.ts';

const JOB = join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'numbers-to-postgres.ts');
const TOTAL = 30_000;

function expectedCountRows(total: number): string[] {
  const counts = new Map<string, number>();
  for (let i = 0; i < total; i++) counts.set(`w${i % 97}`, (counts.get(`w${i % 97}`) ?? 0) + 1);
  const rows: string[] = [];
  for (const [w, c] of counts) for (let n = 1; n <= c; n++) rows.push(`${w} ${n}`);
  return rows.sort();
}

describe('PostgresSink resumed in another process', { timeout: 300_000 }, () => {
  let server: PostgresServer;
  let client: pg.Client;
  let root: string;
  const expected = expectedCountRows(TOTAL);

  before(async () => {
    server = await startPostgres();
    client = new pg.Client(server.connectionOptions());
    client.on('error', () => {});
    await client.connect();
    root = makeTempDir('postgres-sink-resume');
  });
  after(async () => {
    await client?.end().catch(() => {});
    await server?.stop();
    removeDir(root);
  });

  const table = async (name: string) => ((await client.query(`SELECT word, n FROM ${name}`)).rows as Array<{ word: string; n: number }>).map((r) => `${r.word} ${r.n}`).sort();
  const prepared = async () => ((await client.query('SELECT gid FROM pg_prepared_xacts')).rows as Array<{ gid: string }>).map((r) => r.gid);

  function start(name: string, checkpointDir: string, rate: number, from?: string[]): WeirProcess {
    const args = ['run', JOB, '-p', '2', '--task-managers', '2', '--checkpoint-dir', checkpointDir, '-D', 'rest.port=0', ...(from ?? []), '--'];
    args.push('--pg-port', String(server.port), '--pg-password', server.password, '--table', name, '--total', String(TOTAL), '--rate', String(rate), '--checkpoint-interval', '100');
    return spawnWeir(args, weirEnv(root));
  }

  test('SIGKILL and resume twice while input keeps coming: exact table, no prepared transaction left', async (t) => {
    await client.query('CREATE TABLE counts_killed (word text, n int, PRIMARY KEY (word, n))');
    const checkpointDir = join(root, 'killed');
    let leftByKills = 0;
    const latest = await killAndResume({
      start: (from) => start('counts_killed', checkpointDir, 3000, from ? ['--from-savepoint', from] : undefined),
      checkpointDir,
      kills: 2,
      beforeKill: async (run, round) => {
        await run.waitFor('three completed checkpoints', (r) => completedCheckpoints(r).length >= 3, 60_000);
        await sleep([30, 70][round]!);
      },
      afterKill: async () => {
        leftByKills += (await prepared()).length;
      },
    });
    const rowsBeforeEnd = (await table('counts_killed')).length;
    assert.ok(rowsBeforeEnd > 0 && rowsBeforeEnd < expected.length, `the kills were not mid-stream: ${rowsBeforeEnd} of ${expected.length} rows committed`);
    await resumeToEnd((from) => start('counts_killed', checkpointDir, 20_000, from ? ['--from-savepoint', from] : undefined), latest, 120_000);
    t.diagnostic(`prepared transactions found right after the kills: ${leftByKills}`);
    assert.deepEqual(await table('counts_killed'), expected);
    assert.deepEqual(await prepared(), []);
  });

  test('stop with a savepoint and resume from it: exact table, no prepared transaction left', async () => {
    await client.query('CREATE TABLE counts_stopped (word text, n int, PRIMARY KEY (word, n))');
    const checkpointDir = join(root, 'stopped');
    const env = weirEnv(root);
    const first = start('counts_stopped', checkpointDir, 1000);
    let resumed: WeirProcess | undefined;
    try {
      const [jobId, jm] = await Promise.all([first.jobId(), first.jobManager()]);
      await first.waitFor('two completed checkpoints', (r) => completedCheckpoints(r).length >= 2, 60_000);
      const stopped = await weir(['stop', jobId, '--savepoint', join(root, 'savepoints'), '--jobmanager', jm], env);
      assert.equal(stopped.code, 0, `weir stop failed: ${stopped.stderr}`);
      const savepoint = /^Savepoint completed\. Path: (\S+)$/m.exec(stopped.stdout)?.[1];
      assert.ok(savepoint, `weir stop printed no savepoint: ${stopped.stdout}`);
      assert.equal(await first.finished(60_000), 0, first.tail());
      const atStop = (await table('counts_stopped')).length;
      assert.ok(atStop < expected.length, `the stop was not mid-stream: ${atStop} of ${expected.length} rows`);
      resumed = start('counts_stopped', checkpointDir, 20_000, ['-s', savepoint]);
      assert.equal(await resumed.finished(120_000), 0, resumed.tail());
    } finally {
      first.kill();
      resumed?.kill();
    }
    assert.deepEqual(await table('counts_stopped'), expected);
    assert.deepEqual(await prepared(), []);
  });
});
