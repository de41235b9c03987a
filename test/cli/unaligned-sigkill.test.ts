// `weir run --unaligned` on a backpressured word count (the sink takes far fewer records per
// second than the source reads), killed with SIGKILL three times and resumed each time from the
// newest retained checkpoint: every one of those is unaligned and holds in-flight records, which
// the next run replays before anything new. The final run goes to the end; the committed output
// must be exactly what one failure-free run commits.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnWeir, type WeirProcess } from '../fixtures/weir-process.ts';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import {
  completeCheckpoints,
  diffSortedLines,
  expectedRunningCounts,
  makeTempDir,
  parseCountLines,
  readCommittedLines,
  removeDir,
  REPO_ROOT,
  writeWordsFile,
} from '../fixtures/recovery-helpers.ts';

const JOB = join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'wordcount-unaligned.ts');
/** Records per second each of the two sink subtasks takes while the job is to be killed. */
const SLOW_SINK = 2500;

type Run = WeirProcess;

let root: string;
before(() => {
  root = makeTempDir('unaligned-sigkill');
});
after(() => removeDir(root));

function startRun(input: string, output: string, checkpointDir: string, sinkRate: number, fromCheckpoint?: string): Run {
  // A killed process cleans up nothing: its worker bundle and job registry entry stay under root.
  const tmp = join(root, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const args = [
    'run',
    JOB,
    '-p',
    '2',
    '--task-managers',
    '2',
    '--unaligned',
    '--checkpoint-dir',
    checkpointDir,
    '-D',
    'taskmanager.network.buffer-records=32',
    '-D',
    'taskmanager.network.credits-per-channel=4',
    '-D',
    'rest.port=0',
    ...(fromCheckpoint ? ['--from-savepoint', fromCheckpoint] : []),
    '--',
    '--input',
    input,
    '--output',
    output,
    '--sink-rate',
    String(sinkRate),
    '--checkpoint-interval',
    '100',
  ];
  return spawnWeir(args, { TMPDIR: tmp, WEIR_HOME: join(root, 'weir-home') });
}

function completedIn(run: Run): number[] {
  return run.log.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('completed checkpoint ')).map((l) => l.checkpointId as number);
}

function jobIdOf(run: Run): string {
  const id = /Job ID: ([0-9a-f]+)/.exec(run.stdout)?.[1];
  assert.ok(id, 'the run did not print its job id');
  return id;
}

function killIfAlive(run: Run): void {
  if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
}

test('weir run --unaligned, SIGKILL and resume from the latest checkpoint three times: exactly-once output', { timeout: 120_000 }, async () => {
  const input = join(root, 'words.txt');
  const { counts } = writeWordsFile(input, { seed: 4711, bytes: 150_000 });
  const expected = expectedRunningCounts(counts);
  const checkpointDir = join(root, 'checkpoints');
  const output = join(root, 'output');

  const killDelays = [10, 45, 80];
  let resumeFrom: { id: number; dir: string } | undefined;
  let committedBefore = 0;
  let withInFlight = 0;
  for (const delay of killDelays) {
    const run = startRun(input, output, checkpointDir, SLOW_SINK, resumeFrom?.dir);
    try {
      if (resumeFrom) {
        const from = resumeFrom;
        await run.waitFor(`the restore of checkpoint ${from.id}`, (r) => r.lines.some((l) => l.startsWith(`restored from checkpoint ${from.id}: `)), 30_000);
      }
      await run.waitFor('two completed checkpoints', (r) => completedIn(r).length >= 2, 30_000);
      await new Promise((r) => setTimeout(r, delay));
      assert.equal(run.child.exitCode, null, 'the job ended before it could be killed: make the input larger');
      run.child.kill('SIGKILL');
      assert.equal((await run.exited).signal, 'SIGKILL');
    } finally {
      killIfAlive(run);
    }
    const latest = completeCheckpoints(join(checkpointDir, jobIdOf(run)))[0];
    assert.ok(latest, 'no complete checkpoint was retained');
    assert.ok(latest.id >= Math.max(...completedIn(run)), 'a completed checkpoint has no _metadata');
    if (resumeFrom) assert.ok(latest.id > resumeFrom.id, `checkpoint numbers go on after a restore: ${latest.id} after ${resumeFrom.id}`);
    const { metadata } = await readMetadata(latest.dir);
    assert.equal(metadata.unaligned, true, `checkpoint ${latest.id} is not unaligned`);
    const inFlight = metadata.operators
      .flatMap((o) => o.subtasks)
      .flatMap((s) => [...Object.values(s.inputChannels ?? {}), ...Object.values(s.outputChannels ?? {})])
      .reduce((n, h) => n + h.records, 0);
    if (inFlight > 0) withInFlight++;
    if (process.env.WEIR_TEST_DEBUG) console.log(`checkpoint ${latest.id}: ${inFlight} in-flight records`);
    resumeFrom = latest;

    // Committed so far: no line twice, for every word exactly 1..k.
    const lines = readCommittedLines(output);
    assert.equal(new Set(lines).size, lines.length, 'a line was committed twice');
    for (const [word, got] of parseCountLines(lines)) {
      const sorted = [...got].sort((a, b) => a - b);
      sorted.forEach((c, i) => assert.equal(c, i + 1, `word ${word}: committed counts are not 1..${sorted.length}`));
    }
    assert.ok(lines.length >= committedBefore, 'committed output shrank');
    assert.ok(lines.length < expected.length, 'all output was committed before the last kill: make the input larger');
    committedBefore = lines.length;
  }
  assert.ok(withInFlight >= 2, `only ${withInFlight} of the resumed checkpoints held in-flight records: the channels were not full`);

  // The last run: the sink at full speed (a job argument; the job graph is the same) to the end.
  const last = startRun(input, output, checkpointDir, 0, resumeFrom!.dir);
  try {
    let timer: NodeJS.Timeout | undefined;
    const exit = await Promise.race([
      last.exited,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the final run did not end; stderr:\n${last.lines.slice(-20).join('\n')}`)), 60_000);
      }),
    ]).finally(() => clearTimeout(timer));
    assert.equal(exit.code, 0, `the final run failed:\n${last.lines.slice(-20).join('\n')}`);
  } finally {
    killIfAlive(last);
  }
  assert.ok(last.lines.some((l) => l.startsWith(`restored from checkpoint ${resumeFrom!.id}: `)), 'the final run did not restore the checkpoint');
  assert.ok(last.lines.some((l) => / FINISHED in /.test(l)), 'the final run did not report FINISHED');
  const diff = diffSortedLines(readCommittedLines(output), expected);
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
});
