// `weir run` of a CDC job SIGKILLed in the middle of the snapshot, while the table changes, and
// resumed from its newest retained checkpoint: the second run reads only the chunks that were not
// finished in that checkpoint (no finished chunk is read again), and the committed change stream
// still materializes into the table with no change twice.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { killAndResume } from '../fixtures/kill-and-resume.ts';
import { spawnWeir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { assertChangeStreamMatchesTable, connect, createOrders, runWorkload, type Sql } from '../fixtures/cdc-workload.ts';
import { parseChangeLines } from '../fixtures/cdc-records.ts';
import { makeTempDir, readCommittedLines, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';

const JOB = join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'cdc-to-files.ts');
const ROWS = 150_000;
const CHUNK = 2500;

let server: MariaDbServer;
let sql: Sql;
let root: string;
before(async () => {
  root = makeTempDir('cdc-sigkill');
  server = await startMariaDb();
  sql = await connect(server);
  await createOrders(sql, 'orders', ROWS);
  await sql.query('CREATE TABLE markers (id INT PRIMARY KEY)');
});
after(async () => {
  await sql?.end();
  await server?.stop();
  removeDir(root);
});

function startRun(output: string, checkpointDir: string, fromCheckpoint?: string): WeirProcess {
  return spawnWeir(
    [
      'run',
      JOB,
      '-p',
      '2',
      '--task-managers',
      '2',
      '--checkpoint-dir',
      checkpointDir,
      '-D',
      'rest.port=0',
      ...(fromCheckpoint ? ['--from-savepoint', fromCheckpoint] : []),
      '--',
      '--port',
      String(server.port),
      '--password',
      server.password,
      '--output',
      output,
      '--chunk-size',
      String(CHUNK),
      '--checkpoint-interval',
      '100',
    ],
    weirEnv(root),
  );
}

const progress = (run: WeirProcess) => run.log.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('snapshot progress'));

/** Sum of a per-subtask source figure in the Prometheus text of a running job. */
async function metricSum(url: string, name: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

test('SIGKILL mid-snapshot and resume: only unfinished chunks are read again; the change stream is exact', { timeout: 180_000 }, async () => {
  const checkpointDir = join(root, 'checkpoints');
  const output = join(root, 'output');
  let writing = true;
  const workload = runWorkload(sql, 'orders', { seed: 5, operations: 100_000, maxKey: ROWS * 2 + 1000, until: () => !writing });

  const latest = await killAndResume({
    start: (from) => startRun(output, checkpointDir, from),
    checkpointDir,
    kills: 1,
    beforeKill: (run) => run.waitFor('a third of the chunks finished', (r) => progress(r).some((l) => (l.snapshot_chunks_finished as number) >= ROWS / CHUNK / 3), 60_000),
  });
  const { metadata } = await readMetadata(latest.dir);
  const enumerator = metadata.coordinators?.['cdc'] as { phase: string; finished: Array<{ id: string }>; tables: Array<{ nextIndex: number; done: boolean }> };
  assert.equal(enumerator.phase, 'snapshot', 'the kill came after the snapshot: make the table larger');
  const readerFinished = metadata.operators
    .filter((o) => o.uid === 'cdc')
    .flatMap((o) => o.subtasks)
    .flatMap((s) => (s.operator['_source-splits']?.values ?? []) as Array<{ kind: string; id: string }>)
    .filter((s) => s.kind === 'finished')
    .map((s) => s.id);
  const finishedAtCheckpoint = new Set([...enumerator.finished.map((c) => c.id), ...readerFinished]);
  assert.ok(finishedAtCheckpoint.size > 0, 'no chunk had finished by the checkpoint resumed from');

  const second = startRun(output, checkpointDir, latest.dir);
  try {
    const url = `http://${await second.jobManager()}`;
    await second.waitFor('the snapshot to finish', (r) => r.log.some((l) => typeof l.msg === 'string' && l.msg.startsWith("snapshot of 'Source: cdc' finished")), 60_000);
    writing = false;
    await workload;
    await sql.query('INSERT INTO markers VALUES (1)');
    // Committed output changes only when a checkpoint completes: look after each one.
    await second.waitFor(
      'the marker row in the committed output',
      (r) => r.log.at(-1)?.msg?.toString().startsWith('completed checkpoint') === true && parseChangeLines(readCommittedLines(output)).some((l) => l.source.table === 'markers'),
      60_000,
    );
    // Subtasks report their figures every 500 ms: long done by the time the marker is committed.
    const totalChunks = await metricSum(url, 'weir_source_snapshot_chunks_finished');
    const readAgain = await metricSum(url, 'weir_source_reader_snapshot_chunks_emitted');
    assert.equal(readAgain, totalChunks - finishedAtCheckpoint.size, `the second run read ${readAgain} chunks; ${finishedAtCheckpoint.size} of ${totalChunks} were finished in checkpoint ${latest.id}`);
    second.child.kill('SIGINT');
    const exit = await second.exited;
    assert.equal(exit.signal, null, 'Ctrl-C cancels the job and the process ends by itself');
    assert.ok(second.lines.some((l) => /CANCELED/.test(l)), second.lines.slice(-5).join('\n'));
  } finally {
    second.kill();
  }
  await assertChangeStreamMatchesTable(server, parseChangeLines(readCommittedLines(output)), 'orders');
});
