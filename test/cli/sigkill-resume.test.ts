// `weir run` killed with SIGKILL (no chance to clean up) and resumed with --from-savepoint from the
// newest retained checkpoint, several times over, then run to its end: the committed output of
// the word count must be exactly what one failure-free run commits.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { killAndResume, resumeToEnd } from '../fixtures/kill-and-resume.ts';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir, sleep } from '../fixtures/recovery-helpers.ts';
import { committedMaxCounts, wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { SMALL_CACHE } from '../fixtures/state-backends.ts';
import { completedCheckpoints, spawnWeir, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';

const WORDS = 30_000;
const RATE = 8_000;
const SEED = 7;

/** `-D` settings of the state backend the runs use (the lmdb one with a small cache, so most accesses go to the store). */
const BACKENDS = {
  heap: [],
  lmdb: ['-D', 'state.backend.type=lmdb', '-D', `state.backend.lmdb.cache-entries=${SMALL_CACHE}`],
} as const;

function startRun(backend: keyof typeof BACKENDS, checkpointDir: string, output: string, fromSavepoint?: string): WeirProcess {
  const args = [
    'run',
    WORDCOUNT,
    '-p',
    '2',
    '--task-managers',
    '2',
    ...BACKENDS[backend],
    '--checkpoint-dir',
    checkpointDir,
    ...(fromSavepoint ? ['--from-savepoint', fromSavepoint] : []),
    '--',
    '--words',
    String(WORDS),
    '--rate',
    String(RATE),
    '--seed',
    String(SEED),
    '--output',
    output,
    '--checkpoint-interval',
    '100',
  ];
  return spawnWeir(args, weirEnv(root));
}

let root: string;
before(() => {
  root = makeTempDir('sigkill');
});
after(() => removeDir(root));

for (const backend of ['heap', 'lmdb'] as const) test(`${backend} state backend: SIGKILL and resume from the latest checkpoint, three times, then finish: exactly-once output`, { timeout: 120_000 }, async () => {
  const checkpointDir = join(root, backend, 'checkpoints');
  const output = join(root, backend, 'output');
  const trueCounts = wordCounts(SEED, WORDS);
  const expected = expectedRunningCounts(trueCounts);
  const start = (from: string | undefined) => startRun(backend, checkpointDir, output, from);

  // Kill a little after a checkpoint completed, at different points of the next interval.
  const killDelays = [15, 55, 90];
  let committedBefore = 0;
  const latest = await killAndResume({
    start,
    checkpointDir,
    kills: killDelays.length,
    beforeKill: async (run, round) => {
      // Two checkpoints of this run, so it has made progress of its own.
      await run.waitFor('two completed checkpoints', (r) => completedCheckpoints(r).length >= 2, 30_000);
      await sleep(killDelays[round]!);
    },
    afterKill: () => {
      // What is committed so far is a consistent prefix of the final output: no line twice, for
      // every word exactly 1..k, and k no more than the input holds.
      for (const [word, k] of committedMaxCounts(output)) {
        assert.ok(k <= (trueCounts.get(word) ?? 0), `word ${word}: ${k} committed counts, only ${trueCounts.get(word) ?? 0} in the input`);
      }
      const lines = readCommittedLines(output);
      assert.ok(lines.length >= committedBefore, 'committed output shrank');
      assert.ok(lines.length < expected.length, 'all output was committed before the last kill: make the input larger');
      committedBefore = lines.length;
    },
  });

  await resumeToEnd(start, latest);
  const diff = diffSortedLines(readCommittedLines(output), expected);
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
});
