// `weir run` of a word count into the transactional FileSink, failed from outside right after its
// checkpoint 3 committed, with a state file of chk-3 damaged first. Falling back to checkpoint 2
// replays the records of checkpoint 3, whose output is already visible: it would be committed
// twice (seen: 1.38M duplicate lines, and the job said FINISHED). So the job fails naming the file,
// the checkpoint and what would be doubled; --allow-duplicating-fallback lets it fall back, loudly,
// and the output then holds checkpoint 3's lines twice; a sink that declares idempotentCommits
// needs no flag.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { corruptStateFile } from '../fixtures/corrupt-checkpoint.ts';
import { diffSortedLines, expectedRunningCounts, makeTempDir, parseCountLines, readCommittedLines, removeDir, sleep, writeWordsFile } from '../fixtures/recovery-helpers.ts';
import { startWeirRun, weirEnv, type WeirProcess } from '../fixtures/weir-process.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'wordcount-throttled.ts');

let root: string;
let input: string;
let counts: Map<string, number>;
before(() => {
  root = makeTempDir('duplicating-fallback');
  input = join(root, 'words.txt');
  counts = writeWordsFile(input, { seed: 2202, bytes: 200_000 }).counts;
});
after(() => removeDir(root));

/** The visible part files of the sink, oldest first (one per checkpoint with output, at parallelism 1). */
function committedFiles(output: string): string[] {
  if (!existsSync(output)) return [];
  return readdirSync(output)
    .filter((n) => n.startsWith('part-'))
    .sort((a, b) => Number(a.slice(a.lastIndexOf('-') + 1)) - Number(b.slice(b.lastIndexOf('-') + 1)));
}

/**
 * The sink's part files once `count` are visible. The commit follows the log line of the
 * completed checkpoint without output of its own to wait for: the directory is looked at every
 * 10 ms, for at most 5 s.
 */
async function committed(output: string, count: number): Promise<string[]> {
  for (let i = 0; i < 500; i++) {
    const files = committedFiles(output);
    if (files.length >= count) return files;
    await sleep(10);
  }
  throw new Error(`${count} committed part files did not appear in ${output}: ${committedFiles(output).join(', ')}`);
}

interface Failover {
  readonly run: WeirProcess;
  readonly output: string;
  readonly corrupted: string;
  /** The lines the sink committed for checkpoint 3. */
  readonly committedFor3: string[];
  readonly exitCode: number | null;
}

/**
 * Runs the word count until checkpoint 3 is complete and its output committed, damages a state
 * file of chk-3, and makes the source fail. Checkpoints are 1.5 s apart: none completes between.
 * Checkpoint 1 comes at once and holds no output; 2 and 3 each commit one part file.
 */
async function failAfterCheckpoint3(name: string, flags: readonly string[], jobArgs: readonly string[] = []): Promise<Failover> {
  const dir = join(root, name);
  const output = join(dir, 'output');
  const failNow = join(dir, 'fail-now');
  const run = startWeirRun(
    [
      JOB,
      '--checkpoint-dir', join(dir, 'checkpoints'),
      '-D', 'execution.checkpointing.num-retained=2',
      '-D', 'restart-strategy.type=fixed-delay',
      '-D', 'restart-strategy.fixed-delay.attempts=3',
      '-D', 'restart-strategy.fixed-delay.delay=50 ms',
      ...flags,
      '--', '--input', input, '--output', output, '--checkpoint-interval', '1500', '--lines-per-second', '1500', '--fail-when', failNow,
      ...jobArgs,
    ],
    weirEnv(dir),
  );
  try {
    const chk3 = await run.waitFor('checkpoint 3', (p) => p.log.find((l) => l.msg === 'completed checkpoint 3'));
    const files = await committed(output, 2);
    assert.equal(files.length, 2, `more than two commits before the failure: ${files.join(', ')}`);
    const corrupted = corruptStateFile(chk3.path as string);
    writeFileSync(failNow, '');
    const exitCode = await run.finished(90_000);
    return { run, output, corrupted, committedFor3: readFileSync(join(output, files[1]!), 'utf8').split('\n').filter((l) => l !== ''), exitCode };
  } finally {
    run.kill();
  }
}

describe('a restart whose latest checkpoint is damaged, after a two-phase-commit sink committed it', () => {
  test('weir run fails, naming the damaged file, the checkpoint, and what a fallback would commit twice', async () => {
    const r = await failAfterCheckpoint3('fail', []);
    const stderr = r.run.lines.join('\n');
    assert.equal(r.exitCode, 1, `weir run did not fail:\n${r.run.tail()}`);
    const cause = r.run.lines.find((l) => l.startsWith('Cause: '));
    assert.ok(cause, `no Cause line:\n${r.run.tail()}`);
    assert.ok(cause.includes(r.corrupted), `the cause does not name ${r.corrupted}: ${cause}`);
    assert.match(cause, /checkpoint 3 cannot be restored/);
    assert.match(cause, /falling back to checkpoint 2/);
    assert.match(cause, /sink 'sink'/);
    assert.match(cause, /--allow-duplicating-fallback/);
    assert.match(cause, /execution\.checkpointing\.fallback-past-committed: allow/);
    assert.ok(!/restored from checkpoint/.test(stderr), `the job restored a checkpoint anyway:\n${r.run.tail()}`);
    // What was committed stays: checkpoints 2 and 3, no line twice.
    const lines = readCommittedLines(r.output);
    assert.ok(lines.length >= r.committedFor3.length && r.committedFor3.length > 0);
    assert.equal(new Set(lines).size, lines.length, 'output was committed twice');
  });

  test('--allow-duplicating-fallback: the job falls back to checkpoint 2, says so loudly, and commits checkpoint 3 twice', async () => {
    const r = await failAfterCheckpoint3('allow', ['--allow-duplicating-fallback']);
    assert.equal(r.exitCode, 0, `the job did not finish:\n${r.run.tail()}`);
    assert.ok(r.run.lines.some((l) => l.startsWith('restored from checkpoint 2:')), `not restored from checkpoint 2:\n${r.run.tail()}`);
    const loud = r.run.log.find((l) => l.level === 'error' && String(l.msg).includes('checkpoint 3 cannot be restored'));
    assert.ok(loud, `the fallback was not logged as an error:\n${r.run.tail()}`);
    assert.ok(String(loud.msg).includes(r.corrupted) && /committed twice/.test(String(loud.msg)) && String(loud.msg).includes('--allow-duplicating-fallback'), `the log does not say what is doubled: ${String(loud.msg)}`);
    // Exactly what the fallback doubles: every line once, and checkpoint 3's lines once more.
    const diff = diffSortedLines(readCommittedLines(r.output), [...expectedRunningCounts(counts), ...r.committedFor3].sort());
    assert.equal(diff, undefined, `the output is not the exact output plus checkpoint 3's lines: ${diff}`);
  });

  test('a sink that declares idempotentCommits: the job falls back without the flag, and its latest count per word is exact', async () => {
    const r = await failAfterCheckpoint3('idempotent', [], ['--idempotent-commits']);
    assert.equal(r.exitCode, 0, `the job did not finish:\n${r.run.tail()}`);
    assert.ok(r.run.lines.some((l) => l.startsWith('restored from checkpoint 2:')), `not restored from checkpoint 2:\n${r.run.tail()}`);
    const lines = readCommittedLines(r.output);
    assert.equal(lines.length, [...counts.values()].reduce((a, b) => a + b, 0) + r.committedFor3.length, 'checkpoint 3 was not replayed');
    const latest = new Map([...parseCountLines(lines)].map(([w, cs]) => [w, Math.max(...cs)]));
    assert.equal(latest.size, counts.size);
    assert.deepEqual(latest, counts);
  });
});
