// PostgreSQL CDC jobs through failures that take time: `weir run` at p2 SIGKILLed in the middle of
// the snapshot, while the table changes, and resumed from its newest retained checkpoint at p1
// (rescaled down): the second run reads only the chunks that were not finished in that
// checkpoint, the backfill slot the killed run's second reader left is dropped, and the committed
// change stream materializes into the table with no change twice. And the database restarted
// (fast shutdown) under a running job: it fails over and its output stays exact.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type pg from 'pg';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { killAndResume } from '../fixtures/kill-and-resume.ts';
import { spawnWeir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { assertPgChangeStreamMatchesTable, connectPg, createPgOrders, runPgWorkload } from '../fixtures/pg-cdc-workload.ts';
import { parsePgChangeLines } from '../fixtures/pg-cdc-records.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { committedPgMarker } from '../fixtures/pg-cdc-workload.ts';

const JOB = join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'pg-cdc-to-files.ts');
const ROWS = 150_000;
const CHUNK = 2500;

let server: PostgresServer;
let sql: pg.Client;
let root: string;
before(async () => {
  root = makeTempDir('pg-cdc-sigkill');
  server = await startPostgres();
  sql = await connectPg(server);
  await createPgOrders(sql, 'orders', ROWS);
  await sql.query('CREATE TABLE markers (id int PRIMARY KEY)');
});
after(async () => {
  await sql?.end();
  await server?.stop();
  removeDir(root);
});

function startRun(output: string, checkpointDir: string, parallelism: number, fromCheckpoint?: string): WeirProcess {
  return spawnWeir(
    [
      'run', JOB, '-p', String(parallelism), '--task-managers', '2', '--checkpoint-dir', checkpointDir, '-D', 'rest.port=0',
      ...(fromCheckpoint ? ['--from-savepoint', fromCheckpoint] : []),
      '--', '--port', String(server.port), '--password', server.password, '--output', output, '--chunk-size', String(CHUNK), '--checkpoint-interval', '100',
    ],
    weirEnv(root),
  );
}

const progress = (run: WeirProcess) => run.log.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('snapshot progress'));

async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

test('SIGKILL mid-snapshot at p2, resume at p1: only unfinished chunks are read again, the extra backfill slot is dropped, the change stream is exact', { timeout: 300_000 }, async () => {
  const checkpointDir = join(root, 'checkpoints');
  const output = join(root, 'output');
  let writing = true;
  const workload = runPgWorkload(sql, 'orders', { seed: 5, operations: 100_000, maxKey: ROWS * 2 + 1000, until: () => !writing });

  const latest = await killAndResume({
    start: (from) => startRun(output, checkpointDir, 2, from),
    checkpointDir,
    kills: 1,
    beforeKill: (run) => run.waitFor('a third of the chunks finished', (r) => progress(r).some((l) => (l.snapshot_chunks_finished as number) >= ROWS / CHUNK / 3), 120_000),
  });
  const slotsAfterKill = (await sql.query('SELECT slot_name FROM pg_replication_slots ORDER BY 1')).rows.map((r) => r.slot_name as string);
  assert.deepEqual(slotsAfterKill, ['weir', 'weir_b0', 'weir_b1'], 'the killed readers could not drop their backfill slots');
  const { metadata } = await readMetadata(latest.dir);
  const enumerator = metadata.coordinators?.['cdc'] as { phase: string; finished: Array<{ id: string }> };
  assert.equal(enumerator.phase, 'snapshot', 'the kill came after the snapshot: make the table larger');
  const readerFinished = metadata.operators
    .filter((o) => o.uid === 'cdc')
    .flatMap((o) => o.subtasks)
    .flatMap((s) => (s.operator['_source-splits']?.values ?? []) as Array<{ kind: string; id: string }>)
    .filter((s) => s.kind === 'finished')
    .map((s) => s.id);
  const finishedAtCheckpoint = new Set([...enumerator.finished.map((c) => c.id), ...readerFinished]);
  assert.ok(finishedAtCheckpoint.size > 0, 'no chunk had finished by the checkpoint resumed from');

  const second = startRun(output, checkpointDir, 1, latest.dir);
  try {
    const url = `http://${await second.jobManager()}`;
    await second.waitFor('the snapshot to finish', (r) => r.log.some((l) => typeof l.msg === 'string' && l.msg.startsWith("snapshot of 'Source: cdc' finished")), 180_000);
    writing = false;
    await workload;
    await sql.query('INSERT INTO markers VALUES (1)');
    await second.waitFor(
      'the marker row in the committed output',
      (r) => r.log.at(-1)?.msg?.toString().startsWith('completed checkpoint') === true && parsePgChangeLines(readCommittedLines(output)).some((l) => l.source.table === 'markers'),
      60_000,
    );
    const totalChunks = await metricSum(url, 'weir_source_snapshot_chunks_finished');
    const readAgain = await metricSum(url, 'weir_source_reader_snapshot_chunks_emitted');
    assert.equal(readAgain, totalChunks - finishedAtCheckpoint.size, `the second run read ${readAgain} chunks; ${finishedAtCheckpoint.size} of ${totalChunks} were finished in checkpoint ${latest.id}`);
    const slots = (await sql.query('SELECT slot_name FROM pg_replication_slots ORDER BY 1')).rows.map((r) => r.slot_name as string);
    assert.deepEqual(slots, ['weir'], "the second reader's backfill slot, left by the killed run, is dropped at p1, and the remaining reader's once it follows the WAL (it would hold WAL back)");
    second.child.kill('SIGINT');
    const exit = await second.exited;
    assert.equal(exit.signal, null, 'Ctrl-C cancels the job and the process ends by itself');
  } finally {
    second.kill();
  }
  await assertPgChangeStreamMatchesTable(server, parsePgChangeLines(readCommittedLines(output)), 'orders');
});

test('the database restarts under the running job: the job fails over and the change stream stays exact', { timeout: 180_000 }, async () => {
  await createPgOrders(sql, 'restarted', 2000);
  const events = new JobEvents();
  const output = join(root, 'restart-output');
  const job = await createJobMaster({
    job: JOB,
    args: ['--port', String(server.port), '--password', server.password, '--output', output, '--tables', 'public.restarted,public.markers', '--slot', 'restarts', '--publication', 'pub_restarts', '--chunk-size', '500', '--checkpoint-interval', '100'],
    config: {
      'parallelism.default': 2,
      'execution.checkpointing.dir': join(root, 'restart-checkpoints'),
      'restart-strategy.type': 'fixed-delay',
      'restart-strategy.fixed-delay.attempts': 100,
      'restart-strategy.fixed-delay.delay': '200 ms',
    },
    listener: events.listener,
    log: createLogger({ level: 'error', write: () => {} }),
  });
  const running = job.run();
  await committedPgMarker(job, events, output, 1); // marker 1 is in the table already: the snapshot is done
  await runPgWorkload(sql, 'restarted', { seed: 11, operations: 400, maxKey: 4500 });
  await sql.end();
  await server.restart();
  sql = await connectPg(server);
  await runPgWorkload(sql, 'restarted', { seed: 12, operations: 400, maxKey: 4500 });
  await sql.query('INSERT INTO markers VALUES (3)');
  const lines = await committedPgMarker(job, events, output, 3);
  await job.cancel();
  await running;
  assert.ok(job.restarts >= 1, `the restart failed the job over: ${events.describe()}`);
  await assertPgChangeStreamMatchesTable(server, lines, 'restarted');
});
