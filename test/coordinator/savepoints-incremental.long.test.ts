// The savepoint suite (savepoints.test.ts) with incremental checkpoints on: a savepoint is still a
// canonical full snapshot of its own (no shared file, no delta; it can be moved and restored from
// anywhere, and on either backend), and the job resumed from it starts a new chain with its first
// checkpoint. Word count through the API: savepoint mid-run, stop with savepoint at p2, resume at
// p3 from the moved savepoint, stop, resume at p1 to the end; and pause/resume with and without
// drain, on lmdb and on the heap. Every result is compared with counts computed from the datagen
// words themselves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, type ExecuteJobOptions, type JobMaster, type JobResult } from '../../src/index.ts';
import { METADATA_FILE } from '../../src/checkpoint/checkpoint-metadata.ts';
import { isTerminal } from '../../src/coordinator/job-status.ts';
import { diffSortedLines, expectedRunningCounts, JobEvents, makeTempDir, readCommittedLines, removeDir, sleep } from '../fixtures/recovery-helpers.ts';
import { assertSameCounts, committedMaxCounts, countsBeforeSplits, emitted, readWordCountSavepoint, wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { assertCanonicalSavepoint, assertFirstCheckpointStartsChain, assertIncrementalRun, CheckpointLog, incrementalConfig } from '../fixtures/incremental-backends.ts';
import type { StateBackendType } from '../../src/state/state-backend.ts';

const SEED = 11;

interface StartedJob {
  readonly master: JobMaster;
  readonly events: JobEvents;
  readonly log: CheckpointLog;
  readonly result: Promise<JobResult>;
}

const started: JobMaster[] = [];

async function start(options: ExecuteJobOptions): Promise<StartedJob> {
  const events = new JobEvents();
  const log = new CheckpointLog();
  const master = await createJobMaster({
    ...options,
    listener: {
      ...events.listener,
      onCheckpointCompleted: (c) => {
        events.listener.onCheckpointCompleted!(c);
        log.record(c);
      },
    },
  });
  started.push(master);
  return { master, events, log, result: master.run() };
}

/** Waits until `n` more checkpoints (or savepoints) of the job completed. */
async function progress(job: StartedJob, n: number): Promise<void> {
  const target = job.events.completed.length + n;
  await job.events.waitFor(`${n} more completed checkpoints`, () => job.events.completed.length >= target, 30_000);
}

async function finished(job: StartedJob): Promise<JobResult> {
  const r = await job.result;
  assert.equal(r.status, 'FINISHED', `the job ended ${r.status}: ${r.error?.message ?? ''}; events: ${job.events.describe()}`);
  return r;
}

/** A stop-with-savepoint's savepoint: its counts are those of the words before its source positions, and the committed output matches them. */
async function checkStopSavepoint(path: string, output: string, what: string) {
  const sp = await readWordCountSavepoint(path);
  assert.equal(sp.type, 'savepoint');
  assertSameCounts(sp.counts, countsBeforeSplits(SEED, sp.splits), `${what}: the savepoint's counts against the words before its source positions`);
  assertSameCounts(committedMaxCounts(output), sp.counts, `${what}: the committed output against the savepoint's counts`);
  return sp;
}

function assertExactOutput(output: string, words: number, what: string): void {
  const diff = diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, words)));
  assert.equal(diff, undefined, `${what}: the committed output is not exactly w\\t1..w\\tn for every word: ${diff}`);
}

let root: string;
before(() => {
  root = makeTempDir('savepoints-incremental');
});
after(async () => {
  for (const m of started) if (!isTerminal(m.status)) await m.cancel();
  removeDir(root);
});

const config = (parallelism: number, backend: StateBackendType, run: string) => ({
  'parallelism.default': parallelism,
  'execution.checkpointing.dir': join(root, `checkpoints-${run}`),
  ...incrementalConfig(backend),
});

// Savepoints are one format whatever backend wrote them: the second run goes heap -> lmdb -> heap.
for (const backends of [['lmdb', 'lmdb', 'lmdb'], ['heap', 'lmdb', 'heap']] as const) describe(`word count through the API, incremental checkpoints (state backends ${backends.join(', ')})`, { timeout: 120_000 }, () => {
  test(`savepoint mid-run, stop with savepoint at p2, resume at p3 from a moved savepoint, stop, resume at p1 (worker TaskManagers; incremental on ${backends.join(', ')}): canonical savepoints, new chains, exactly-once`, async (t) => {
    const WORDS = 90_000;
    const RATE = 6_000;
    const run = backends.join('-');
    const out = join(root, `wc-out-${run}`);
    const sps = join(root, `wc-savepoints-${run}`);
    const args = (rate?: number) => ['--words', String(WORDS), '--seed', String(SEED), '--output', out, '--checkpoint-interval', '200', ...(rate ? ['--rate', String(rate)] : [])];

    const a = await start({ job: WORDCOUNT, args: args(RATE), config: config(2, backends[0], run), taskManagers: 2 });
    await a.master.whenRunning();
    await progress(a, 1);
    const mid = await a.master.triggerSavepoint(sps);
    assertCanonicalSavepoint(mid.metadata, 'counts');
    await progress(a, 2);
    assert.equal(a.master.status, 'RUNNING', 'a savepoint does not stop the job');
    const stop1 = await a.master.stopWithSavepoint(sps);
    await finished(a);
    assertCanonicalSavepoint(stop1.metadata, 'counts');
    const figuresA = assertIncrementalRun(a.log, 'counts', backends[0] === 'lmdb');

    const midSp = await readWordCountSavepoint(mid.directory);
    assertSameCounts(midSp.counts, countsBeforeSplits(SEED, midSp.splits), 'the mid-run savepoint against the words before its source positions');
    const sp1 = await checkStopSavepoint(stop1.directory, out, 'stop at p2');
    assert.equal(sp1.parallelism, 2);
    assert.ok(emitted(midSp.splits) > 0 && emitted(midSp.splits) < emitted(sp1.splits), `the job read on after the mid-run savepoint: ${emitted(midSp.splits)} then ${emitted(sp1.splits)}`);
    assert.ok(emitted(sp1.splits) < WORDS, 'the input ended before the stop: make it larger');

    // Self-contained although the job's checkpoints were chains of shared files: move it, resume at p3 from there.
    const moved = join(root, `elsewhere-${run}`, 'renamed-savepoint');
    mkdirSync(join(root, `elsewhere-${run}`));
    renameSync(stop1.directory, moved);
    const b = await start({ job: WORDCOUNT, args: args(RATE), config: config(3, backends[1], run), taskManagers: 2, restoreFrom: moved });
    await b.master.whenRunning();
    assert.deepEqual(b.events.restored, [{ checkpointId: stop1.id, path: moved, isSavepoint: true }]);
    await progress(b, 2);
    const stop2 = await b.master.stopWithSavepoint(sps);
    await finished(b);
    assertFirstCheckpointStartsChain(b.log, 'counts');
    assertCanonicalSavepoint(stop2.metadata, 'counts');
    assert.ok(stop2.id > stop1.id, `checkpoint ids go on after a restore: ${stop2.id} after ${stop1.id}`);
    const sp2 = await checkStopSavepoint(stop2.directory, out, 'stop at p3');
    assert.equal(sp2.parallelism, 3);
    assert.ok(emitted(sp2.splits) > emitted(sp1.splits), 'the job read on at parallelism 3');
    assert.ok(emitted(sp2.splits) < WORDS, 'the input ended before the second stop: make it larger');

    t.diagnostic(`first run: ${figuresA.checkpoints} checkpoints, ${figuresA.withDeltas} with deltas; words read: ${emitted(midSp.splits)} at the mid-run savepoint, ${emitted(sp1.splits)} at the stop at p2, ${emitted(sp2.splits)} at the stop at p3, of ${WORDS}`);
    const c = await start({ job: WORDCOUNT, args: args(), config: config(1, backends[2], run), taskManagers: 2, restoreFrom: stop2.directory });
    await finished(c);
    assert.deepEqual(c.events.restored, [{ checkpointId: stop2.id, path: stop2.directory, isSavepoint: true }]);
    assertExactOutput(out, WORDS, 'after p2 -> p3 -> p1');
    for (const dir of [mid.directory, moved, stop2.directory]) assert.ok(existsSync(join(dir, METADATA_FILE)), `${dir} is still there`);
  });
});

for (const backend of ['lmdb', 'heap'] as const) test(`${backend}, incremental: pause and resume, stop with a savepoint, wait, resume; again with drain; nothing lost, nothing duplicated, each resumed job starts a new chain`, { timeout: 120_000 }, async (t) => {
  const WORDS = 60_000;
  const out = join(root, `pause-out-${backend}`);
  const sps = join(root, `pause-savepoints-${backend}`);
  const args = (rate?: number) => ['--words', String(WORDS), '--seed', String(SEED), '--output', out, '--checkpoint-interval', '100', ...(rate ? ['--rate', String(rate)] : [])];

  const a = await start({ job: WORDCOUNT, args: args(4_000), config: config(2, backend, `pause-${backend}`) });
  await a.master.whenRunning();
  await progress(a, 3);
  const spA = await a.master.stopWithSavepoint(sps, false);
  await finished(a);
  assertIncrementalRun(a.log, 'counts', backend === 'lmdb');
  assertCanonicalSavepoint(spA.metadata, 'counts');
  const factsA = await checkStopSavepoint(spA.directory, out, 'paused');
  assert.ok(emitted(factsA.splits) < WORDS, 'the input ended before the stop: make it larger');
  const pausedLines = readCommittedLines(out);
  await sleep(300);
  assert.deepEqual(readCommittedLines(out), pausedLines, 'nothing is committed while the job is stopped');

  const b = await start({ job: WORDCOUNT, args: args(4_000), config: config(2, backend, `pause-${backend}`), restoreFrom: spA.directory });
  await b.master.whenRunning();
  await progress(b, 3);
  const spB = await b.master.stopWithSavepoint(sps, true);
  await finished(b);
  assert.deepEqual(b.events.restored, [{ checkpointId: spA.id, path: spA.directory, isSavepoint: true }]);
  assertFirstCheckpointStartsChain(b.log, 'counts');
  assertIncrementalRun(b.log, 'counts', backend === 'lmdb');
  assertCanonicalSavepoint(spB.metadata, 'counts');
  const factsB = await checkStopSavepoint(spB.directory, out, 'paused with drain');
  assert.ok(emitted(factsB.splits) > emitted(factsA.splits), 'the resumed job made progress');
  assert.ok(emitted(factsB.splits) < WORDS, 'the input ended before the drained stop: make it larger');
  const drainedLines = readCommittedLines(out);
  await sleep(300);
  assert.deepEqual(readCommittedLines(out), drainedLines, 'nothing is committed while the job is stopped');

  t.diagnostic(`words read: ${emitted(factsA.splits)} at the first stop, ${emitted(factsB.splits)} at the drained stop, of ${WORDS}`);
  const c = await start({ job: WORDCOUNT, args: args(), config: config(2, backend, `pause-${backend}`), restoreFrom: spB.directory });
  await finished(c);
  assertExactOutput(out, WORDS, 'after two pauses');
});
