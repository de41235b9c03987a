// `weir run --unaligned` on a backpressured word count (the sink takes far fewer records per
// second than the source reads), killed with SIGKILL three times and resumed each time from the
// newest retained checkpoint: every one of those is unaligned and holds in-flight records, which
// the next run replays before anything new. The final run goes to the end; the committed output
// must be exactly what one failure-free run commits.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { killAndResume, resumeToEnd } from '../fixtures/kill-and-resume.ts';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir, REPO_ROOT, sleep, writeWordsFile } from '../fixtures/recovery-helpers.ts';
import { committedMaxCounts } from '../fixtures/savepoint-helpers.ts';
import { completedCheckpoints, spawnWeir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';

const JOB = join(REPO_ROOT, 'test', 'fixtures', 'jobs', 'wordcount-unaligned.ts');
/** Records per second each of the two sink subtasks takes while the job is to be killed. */
const SLOW_SINK = 2500;

let root: string;
before(() => {
  root = makeTempDir('unaligned-sigkill');
});
after(() => removeDir(root));

function startRun(input: string, output: string, checkpointDir: string, sinkRate: number, fromCheckpoint?: string): WeirProcess {
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
  return spawnWeir(args, weirEnv(root));
}

test('weir run --unaligned, SIGKILL and resume from the latest checkpoint three times: exactly-once output', { timeout: 120_000 }, async () => {
  const input = join(root, 'words.txt');
  const { counts } = writeWordsFile(input, { seed: 4711, bytes: 150_000 });
  const expected = expectedRunningCounts(counts);
  const checkpointDir = join(root, 'checkpoints');
  const output = join(root, 'output');

  const killDelays = [10, 45, 80];
  let committedBefore = 0;
  let withInFlight = 0;
  const latest = await killAndResume({
    start: (from) => startRun(input, output, checkpointDir, SLOW_SINK, from),
    checkpointDir,
    kills: killDelays.length,
    beforeKill: async (run, round) => {
      await run.waitFor('two completed checkpoints', (r) => completedCheckpoints(r).length >= 2, 30_000);
      await sleep(killDelays[round]!);
    },
    afterKill: async (checkpoint) => {
      const { metadata } = await readMetadata(checkpoint.dir);
      assert.equal(metadata.unaligned, true, `checkpoint ${checkpoint.id} is not unaligned`);
      const inFlight = metadata.operators
        .flatMap((o) => o.subtasks)
        .flatMap((s) => [...Object.values(s.inputChannels ?? {}), ...Object.values(s.outputChannels ?? {})])
        .reduce((n, h) => n + h.records, 0);
      if (inFlight > 0) withInFlight++;
      if (process.env.WEIR_TEST_DEBUG) console.log(`checkpoint ${checkpoint.id}: ${inFlight} in-flight records`);

      // Committed so far: no line twice, for every word exactly 1..k.
      committedMaxCounts(output);
      const lines = readCommittedLines(output);
      assert.ok(lines.length >= committedBefore, 'committed output shrank');
      assert.ok(lines.length < expected.length, 'all output was committed before the last kill: make the input larger');
      committedBefore = lines.length;
    },
  });
  assert.ok(withInFlight >= 2, `only ${withInFlight} of the resumed checkpoints held in-flight records: the channels were not full`);

  // The last run: the sink at full speed (a job argument; the job graph is the same) to the end.
  await resumeToEnd((from) => startRun(input, output, checkpointDir, 0, from), latest);
  const diff = diffSortedLines(readCommittedLines(output), expected);
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
});
