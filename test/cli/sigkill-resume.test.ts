// `weir run` killed with SIGKILL (no chance to clean up) and resumed with --from-savepoint from the
// newest retained checkpoint, several times over, then run to its end: the committed output of
// the word count must be exactly what one failure-free run commits.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnWeir, type WeirProcess } from '../fixtures/weir-process.ts';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { WordGenerator } from '../../src/connectors/datagen/index.ts';
import {
  completeCheckpoints,
  diffSortedLines,
  expectedRunningCounts,
  makeTempDir,
  parseCountLines,
  readCommittedLines,
  removeDir,
  REPO_ROOT,
} from '../fixtures/recovery-helpers.ts';

const WORDS = 30_000;
const RATE = 8_000;
const SEED = 7;

type Run = WeirProcess;

function startRun(checkpointDir: string, output: string, fromSavepoint?: string): Run {
  // A killed process cannot remove its temporary files (the worker bundle): keep them under root.
  const tmp = join(root, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const args = [
    'run',
    join(REPO_ROOT, 'examples', 'wordcount.ts'),
    '-p',
    '2',
    '--task-managers',
    '2',
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
  return spawnWeir(args, { TMPDIR: tmp });
}

function completedIn(run: Run): Array<{ id: number; path: string }> {
  return run.log
    .filter((l) => typeof l.msg === 'string' && l.msg.startsWith('completed checkpoint '))
    .map((l) => ({ id: l.checkpointId as number, path: l.path as string }));
}

function jobIdOf(run: Run): string {
  const m = /Job ID: ([0-9a-f]+)/.exec(run.stdout);
  const fromLog = run.log.find((l) => typeof l.jobId === 'string')?.jobId as string | undefined;
  const id = m?.[1] ?? fromLog;
  assert.ok(id, 'the run did not print its job id');
  return id;
}

/** Committed output in the middle of the run: no line twice, and for every word exactly 1..k. */
function assertConsistentPrefix(lines: readonly string[], trueCounts: ReadonlyMap<string, number>): void {
  const seen = new Set<string>();
  for (const l of lines) {
    assert.ok(!seen.has(l), `line ${JSON.stringify(l)} was committed twice`);
    seen.add(l);
  }
  for (const [word, counts] of parseCountLines(lines)) {
    const sorted = [...counts].sort((a, b) => a - b);
    sorted.forEach((c, i) => assert.equal(c, i + 1, `word ${word}: committed counts are not 1..${sorted.length}: ${sorted.slice(0, 20).join(',')}`));
    assert.ok(sorted.length <= (trueCounts.get(word) ?? 0), `word ${word}: ${sorted.length} committed counts, only ${trueCounts.get(word) ?? 0} in the input`);
  }
}

let root: string;
before(() => {
  root = makeTempDir('sigkill');
});
after(() => removeDir(root));

test('SIGKILL and resume from the latest checkpoint, three times, then finish: exactly-once output', { timeout: 120_000 }, async () => {
  const checkpointDir = join(root, 'checkpoints');
  const output = join(root, 'output');
  const generator = new WordGenerator(SEED);
  const trueCounts = new Map<string, number>();
  for (let i = 0; i < WORDS; i++) {
    const w = generator.wordAt(i);
    trueCounts.set(w, (trueCounts.get(w) ?? 0) + 1);
  }
  const expected = expectedRunningCounts(trueCounts);

  // Kill a little after a checkpoint completed, at different points of the next interval.
  const killDelays = [15, 55, 90];
  let resumeFrom: { id: number; dir: string } | undefined;
  let committedBefore = 0;
  for (const delay of killDelays) {
    const run = startRun(checkpointDir, output, resumeFrom?.dir);
    try {
      if (resumeFrom) {
        const from = resumeFrom;
        await run.waitFor(`the restore of checkpoint ${from.id}`, (r) => r.lines.some((l) => l.startsWith(`restored from checkpoint ${from.id}: `)), 30_000);
      }
      // Two checkpoints of this run, so it has made progress of its own.
      await run.waitFor('two completed checkpoints', (r) => completedIn(r).length >= 2, 30_000);
      await new Promise((r) => setTimeout(r, delay));
      assert.equal(run.child.exitCode, null, 'the job ended before it could be killed: make the input larger');
      run.child.kill('SIGKILL');
      const exit = await run.exited;
      assert.equal(exit.signal, 'SIGKILL');
    } finally {
      if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
    }
    // Each run has its own job id, so its own folder; its newest complete checkpoint is where to go on.
    const jobDir = join(checkpointDir, jobIdOf(run));
    const latest = completeCheckpoints(jobDir)[0];
    assert.ok(latest, `no complete checkpoint in ${jobDir}`);
    assert.ok(latest.id >= Math.max(...completedIn(run).map((c) => c.id)), 'a completed checkpoint has no _metadata');
    if (resumeFrom) assert.ok(latest.id > resumeFrom.id, `checkpoint numbers go on after a restore: ${latest.id} after ${resumeFrom.id}`);
    resumeFrom = latest;

    // What is committed so far is a consistent prefix of the final output.
    const lines = readCommittedLines(output);
    assertConsistentPrefix(lines, trueCounts);
    assert.ok(lines.length >= committedBefore, 'committed output shrank');
    assert.ok(lines.length < expected.length, 'all output was committed before the last kill: make the input larger');
    committedBefore = lines.length;
  }

  const last = startRun(checkpointDir, output, resumeFrom!.dir);
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
    if (last.child.exitCode === null && last.child.signalCode === null) last.child.kill('SIGKILL');
  }
  assert.ok(last.lines.some((l) => l.startsWith(`restored from checkpoint ${resumeFrom!.id}: `)), 'the final run did not restore the checkpoint');
  assert.ok(last.lines.some((l) => / FINISHED in /.test(l)), 'the final run did not report FINISHED');

  const lines = readCommittedLines(output);
  const diff = diffSortedLines(lines, expected);
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
});
