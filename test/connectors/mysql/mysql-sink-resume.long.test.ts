// MySqlSink across processes: `weir run` SIGKILLed twice while input keeps coming and resumed from
// the newest checkpoint each time (the killed runs leave prepared XA transactions that the next run
// must commit or roll back by their stable gtrids: the job id changes on every run), and a
// stop-with-savepoint resumed from the savepoint. The table must equal an independent computation
// row for row, and XA RECOVER must be empty at the end.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { killAndResume, resumeToEnd } from '../../fixtures/kill-and-resume.ts';
import { makeTempDir, removeDir, REPO_ROOT, sleep } from '../../fixtures/recovery-helpers.ts';
import { startMariaDb, type MariaDbServer } from '../../fixtures/mariadb-server.ts';
import { completedCheckpoints, spawnWeir, weir, weirEnv, type WeirProcess } from '../../fixtures/weir-process.ts';

const JOB = join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'numbers-to-mysql.ts');
const TOTAL = 30_000;

function expectedCountRows(total: number): string[] {
  const counts = new Map<string, number>();
  for (let i = 0; i < total; i++) counts.set(`w${i % 97}`, (counts.get(`w${i % 97}`) ?? 0) + 1);
  return [...counts].flatMap(([w, c]) => Array.from({ length: c }, (_, k) => `${w} ${k + 1}`)).sort();
}

describe('MySqlSink resumed in another process', { timeout: 300_000 }, () => {
  let server: MariaDbServer;
  let conn: mysql.Connection;
  let root: string;
  const expected = expectedCountRows(TOTAL);

  before(async () => {
    server = await startMariaDb();
    conn = await mysql.createConnection(server.connectionOptions());
    conn.on('error', () => {});
    await conn.query('CREATE DATABASE sinks');
    root = makeTempDir('mysql-sink-resume');
  });
  after(async () => {
    await conn?.end().catch(() => {});
    await server?.stop();
    removeDir(root);
  });

  const table = async (name: string) => ((await conn.query(`SELECT word, n FROM sinks.${name}`))[0] as Array<{ word: string; n: number }>).map((r) => `${r.word} ${r.n}`).sort();
  const prepared = async () => ((await conn.query('XA RECOVER'))[0] as Array<{ data: string }>).map((r) => String(r.data));

  function start(name: string, checkpointDir: string, rate: number, from?: string[]): WeirProcess {
    const args = ['run', JOB, '-p', '2', '--task-managers', '2', '--checkpoint-dir', checkpointDir, '-D', 'rest.port=0', ...(from ?? []), '--'];
    args.push('--port', String(server.port), '--password', server.password, '--table', name, '--total', String(TOTAL), '--rate', String(rate), '--checkpoint-interval', '100');
    return spawnWeir(args, weirEnv(root));
  }

  test('SIGKILL and resume twice while input keeps coming: exact table, XA RECOVER empty (the killed runs\' prepared transactions included)', async (t) => {
    await conn.query('CREATE TABLE sinks.counts_killed (word varchar(8), n int, PRIMARY KEY (word, n))');
    const checkpointDir = join(root, 'killed');
    const leftByKills: string[] = [];
    const latest = await killAndResume({
      start: (from) => start('counts_killed', checkpointDir, 3000, from ? ['--from-savepoint', from] : undefined),
      checkpointDir,
      kills: 2,
      beforeKill: async (run, round) => {
        await run.waitFor('three completed checkpoints', (r) => completedCheckpoints(r).length >= 3, 60_000);
        await sleep([30, 70][round]!);
      },
      afterKill: async () => {
        leftByKills.push(...(await prepared()));
      },
    });
    const rowsBeforeEnd = (await table('counts_killed')).length;
    assert.ok(rowsBeforeEnd > 0 && rowsBeforeEnd < expected.length, `the kills were not mid-stream: ${rowsBeforeEnd} of ${expected.length} rows committed`);
    await resumeToEnd((from) => start('counts_killed', checkpointDir, 20_000, from ? ['--from-savepoint', from] : undefined), latest, 120_000);
    t.diagnostic(`prepared XA transactions found right after the kills: ${leftByKills.length}`);
    assert.deepEqual(await table('counts_killed'), expected);
    assert.deepEqual(await prepared(), []);
  });

  test('stop with a savepoint and resume from it: exact table, XA RECOVER empty', async () => {
    await conn.query('CREATE TABLE sinks.counts_stopped (word varchar(8), n int, PRIMARY KEY (word, n))');
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
      assert.ok(atStop > 0 && atStop < expected.length, `the stop was not mid-stream: ${atStop} of ${expected.length} rows`);
      assert.deepEqual(await prepared(), [], 'the stop-with-savepoint left prepared XA transactions');
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
