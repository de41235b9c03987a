// Savepoints through the JobMaster API: taken mid-run and by stop-with-savepoint, restored at other
// parallelisms on worker TaskManagers, moved before a restore, paused and resumed (with and
// without drain), restored into changed jobs, and read back in the first metadata format. Every
// result is compared with counts computed from the datagen words themselves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createJobMaster, RestoreError, type ExecuteJobOptions, type JobMaster, type JobResult } from '../../src/index.ts';
import { METADATA_FILE, METADATA_VERSION, readMetadata, writeMetadata, type CheckpointMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { isTerminal } from '../../src/coordinator/job-status.ts';
import { fileCheckpointStorageWorkerView } from '../../src/checkpoint/file-checkpoint-storage-worker-view.ts';
import { diffSortedLines, expectedRunningCounts, JobEvents, makeTempDir, readCommittedLines, removeDir, sleep } from '../fixtures/recovery-helpers.ts';
import {
  assertSameCounts,
  committedMaxCounts,
  countsBeforeSplits,
  emitted,
  readWordCountSavepoint,
  wordCounts,
  WORDCOUNT,
} from '../fixtures/savepoint-helpers.ts';
import { stateBackendConfig } from '../fixtures/state-backends.ts';

const EVOLUTION = fileURLToPath(new URL('../fixtures/jobs/savepoint-evolution.ts', import.meta.url));
const SEED = 11;

interface StartedJob {
  readonly master: JobMaster;
  readonly events: JobEvents;
  readonly result: Promise<JobResult>;
}

const started: JobMaster[] = [];

async function start(options: ExecuteJobOptions): Promise<StartedJob> {
  const events = new JobEvents();
  const master = await createJobMaster({ ...options, listener: events.listener });
  started.push(master);
  return { master, events, result: master.run() };
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

/**
 * A stop-with-savepoint's savepoint: its counts are those of the words before its source positions,
 * and the committed output holds, for every word, exactly the counts 1..(the savepoint's count).
 */
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
  root = makeTempDir('savepoints');
});
after(async () => {
  for (const m of started) if (!isTerminal(m.status)) await m.cancel();
  removeDir(root);
});

// Savepoints are one format whatever backend wrote them: the second run goes lmdb -> heap -> lmdb.
for (const backends of [['heap', 'heap', 'heap'], ['lmdb', 'heap', 'lmdb']] as const) describe(`word count through the API (state backends ${backends.join(', ')})`, { timeout: 90_000 }, () => {
  test(`savepoint mid-run, stop with savepoint at p2, resume at p3 from a moved savepoint, stop, resume at p1 (worker TaskManagers; state backends ${backends.join(', ')}): exactly-once`, async (t) => {
    const WORDS = 90_000;
    const RATE = 6_000;
    const run = backends.join('-');
    const out = join(root, `wc-out-${run}`);
    const sps = join(root, `wc-savepoints-${run}`);
    const args = (rate?: number) => ['--words', String(WORDS), '--seed', String(SEED), '--output', out, '--checkpoint-interval', '200', ...(rate ? ['--rate', String(rate)] : [])];

    // Parallelism 2: a savepoint while running, then stop with a savepoint.
    const a = await start({ job: WORDCOUNT, args: args(RATE), config: { 'parallelism.default': 2, ...stateBackendConfig(backends[0]) }, taskManagers: 2 });
    await a.master.whenRunning();
    await progress(a, 1);
    const mid = await a.master.triggerSavepoint(sps);
    assert.equal(mid.type, 'savepoint');
    assert.ok(mid.directory.startsWith(sps), `the savepoint is in the given directory: ${mid.directory}`);
    await progress(a, 2);
    assert.equal(a.master.status, 'RUNNING', 'a savepoint does not stop the job');
    const stop1 = await a.master.stopWithSavepoint(sps);
    await finished(a);

    const midSp = await readWordCountSavepoint(mid.directory);
    assertSameCounts(midSp.counts, countsBeforeSplits(SEED, midSp.splits), 'the mid-run savepoint against the words before its source positions');
    const sp1 = await checkStopSavepoint(stop1.directory, out, 'stop at p2');
    assert.equal(sp1.parallelism, 2);
    assert.ok(emitted(midSp.splits) > 0 && emitted(midSp.splits) < emitted(sp1.splits), `the job read on after the mid-run savepoint: ${emitted(midSp.splits)} then ${emitted(sp1.splits)}`);
    assert.ok(emitted(sp1.splits) < WORDS, 'the input ended before the stop: make it larger');

    // Savepoints are self-contained: move this one elsewhere, then resume at parallelism 3 from there.
    const moved = join(root, `elsewhere-${run}`, 'renamed-savepoint');
    mkdirSync(join(root, `elsewhere-${run}`));
    renameSync(stop1.directory, moved);
    const b = await start({ job: WORDCOUNT, args: args(RATE), config: { 'parallelism.default': 3, ...stateBackendConfig(backends[1]) }, taskManagers: 2, restoreFrom: moved });
    await b.master.whenRunning();
    assert.deepEqual(b.events.restored, [{ checkpointId: stop1.id, path: moved, isSavepoint: true }]);
    await progress(b, 2);
    const stop2 = await b.master.stopWithSavepoint(sps);
    await finished(b);
    assert.ok(stop2.id > stop1.id, `checkpoint ids go on after a restore: ${stop2.id} after ${stop1.id}`);
    const sp2 = await checkStopSavepoint(stop2.directory, out, 'stop at p3');
    assert.equal(sp2.parallelism, 3);
    assert.equal(stop2.metadata.operators.find((o) => o.uid === 'counts')!.subtasks.length, 3);
    assert.ok(emitted(sp2.splits) > emitted(sp1.splits), 'the job read on at parallelism 3');
    assert.ok(emitted(sp2.splits) < WORDS, 'the input ended before the second stop: make it larger');

    t.diagnostic(`words read: ${emitted(midSp.splits)} at the mid-run savepoint, ${emitted(sp1.splits)} at the stop at p2, ${emitted(sp2.splits)} at the stop at p3, of ${WORDS}`);
    // Parallelism 1, no rate limit (job arguments are not state), to the end of the input.
    const c = await start({ job: WORDCOUNT, args: args(), config: { 'parallelism.default': 1, ...stateBackendConfig(backends[2]) }, taskManagers: 2, restoreFrom: stop2.directory });
    await finished(c);
    assert.deepEqual(c.events.restored, [{ checkpointId: stop2.id, path: stop2.directory, isSavepoint: true }]);
    assertExactOutput(out, WORDS, 'after p2 -> p3 -> p1');
    // weir never removes a savepoint: not when jobs restored from them finish, nor when checkpoints subsume.
    for (const dir of [mid.directory, moved, stop2.directory]) assert.ok(existsSync(join(dir, METADATA_FILE)), `${dir} is still there`);
  });

  if (backends[0] === 'heap') test('pause and resume: stop with a savepoint, wait, resume; again with drain; nothing lost, nothing duplicated', async (t) => {
    const WORDS = 60_000;
    const out = join(root, 'pause-out');
    const sps = join(root, 'pause-savepoints');
    const args = (rate?: number) => ['--words', String(WORDS), '--seed', String(SEED), '--output', out, '--checkpoint-interval', '100', ...(rate ? ['--rate', String(rate)] : [])];
    const config = { 'parallelism.default': 2 };

    const a = await start({ job: WORDCOUNT, args: args(8_000), config });
    await a.master.whenRunning();
    await progress(a, 2);
    const spA = await a.master.stopWithSavepoint(sps, false);
    await finished(a);
    const factsA = await checkStopSavepoint(spA.directory, out, 'paused');
    assert.ok(emitted(factsA.splits) < WORDS, 'the input ended before the stop: make it larger');
    const pausedLines = readCommittedLines(out);
    await sleep(300);
    assert.deepEqual(readCommittedLines(out), pausedLines, 'nothing is committed while the job is stopped');

    const b = await start({ job: WORDCOUNT, args: args(8_000), config, restoreFrom: spA.directory });
    await b.master.whenRunning();
    await progress(b, 2);
    const spB = await b.master.stopWithSavepoint(sps, true);
    await finished(b);
    assert.deepEqual(b.events.restored, [{ checkpointId: spA.id, path: spA.directory, isSavepoint: true }]);
    const factsB = await checkStopSavepoint(spB.directory, out, 'paused with drain');
    assert.ok(emitted(factsB.splits) > emitted(factsA.splits), 'the resumed job made progress');
    assert.ok(emitted(factsB.splits) < WORDS, 'the input ended before the drained stop: make it larger');
    const drainedLines = readCommittedLines(out);
    await sleep(300);
    assert.deepEqual(readCommittedLines(out), drainedLines, 'nothing is committed while the job is stopped');

    t.diagnostic(`words read: ${emitted(factsA.splits)} at the first stop, ${emitted(factsB.splits)} at the drained stop, of ${WORDS}`);
    const c = await start({ job: WORDCOUNT, args: args(), config, restoreFrom: spB.directory });
    await finished(c);
    assertExactOutput(out, WORDS, 'after two pauses');
  });
});

describe('a stop-with-savepoint that fails', { timeout: 60_000 }, () => {
  test('leaves the job running and reading; a later stop succeeds, and the resumed job finishes exactly-once', async () => {
    const WORDS = 60_000;
    const out = join(root, 'failed-stop-out');
    const args = (rate?: number) => ['--words', String(WORDS), '--seed', String(SEED), '--output', out, '--checkpoint-interval', '100', ...(rate ? ['--rate', String(rate)] : [])];
    const config = { 'parallelism.default': 2 };
    // A directory below a regular file cannot be made: every subtask's snapshot fails.
    const blocker = join(root, 'a-regular-file');
    writeFileSync(blocker, 'not a directory\n');

    const a = await start({ job: WORDCOUNT, args: args(8_000), config });
    await a.master.whenRunning();
    await progress(a, 1);
    await assert.rejects(a.master.stopWithSavepoint(join(blocker, 'savepoints')), (e: Error) => {
      assert.equal(e.name, 'SavepointError');
      assert.match(e.message, new RegExp(a.master.jobId));
      return true;
    });
    assert.equal(a.master.status, 'RUNNING', 'the job keeps running');
    const readBefore = a.master.recordCounts().readIn;
    await progress(a, 2);
    await a.events.waitFor('the sources to read on', () => a.master.recordCounts().readIn > readBefore);
    const sp = await a.master.stopWithSavepoint(join(root, 'failed-stop-savepoints'));
    await finished(a);
    const facts = await checkStopSavepoint(sp.directory, out, 'the second stop');
    assert.ok(emitted(facts.splits) < WORDS, 'the input ended before the stop: make it larger');

    const b = await start({ job: WORDCOUNT, args: args(), config, restoreFrom: sp.directory });
    await finished(b);
    assertExactOutput(out, WORDS, 'after a failed and a successful stop');
  });
});

describe('a stop-with-savepoint with drain that fails', { timeout: 60_000 }, () => {
  test('fails the job over to its latest checkpoint (the drained input cannot be undone); it goes on and finishes exactly-once', async (t) => {
    const WORDS = 60_000;
    const out = join(root, 'failed-drain-out');
    const args = (rate?: number) => ['--words', String(WORDS), '--seed', String(SEED), '--output', out, '--checkpoint-interval', '100', ...(rate ? ['--rate', String(rate)] : [])];
    const config = { 'parallelism.default': 2, 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.attempts': 1, 'restart-strategy.fixed-delay.delay': 0 };
    // The savepoint's storage fails once the sources have drained (a target that is unusable from
    // the start is refused before anything stops): the first savepoint state write is refused.
    const storage = fileCheckpointStorageWorkerView as { writeSnapshot: typeof fileCheckpointStorageWorkerView.writeSnapshot };
    const original = storage.writeSnapshot;
    storage.writeSnapshot = (target, ...rest) => {
      if (!target.location.includes('failing-savepoints')) return original(target, ...rest);
      storage.writeSnapshot = original;
      return Promise.reject(new Error('the savepoint storage failed (injected)'));
    };
    t.after(() => void (storage.writeSnapshot = original));

    const a = await start({ job: WORDCOUNT, args: args(8_000), config });
    await a.master.whenRunning();
    await progress(a, 1);
    await assert.rejects(a.master.stopWithSavepoint(join(root, 'failing-savepoints'), true), { name: 'SavepointError', message: /savepoint storage failed \(injected\)/ });
    await a.events.waitFor('a restart from the latest checkpoint', () => a.events.restored.length === 1 && a.master.status === 'RUNNING');
    assert.equal(a.events.restarts.length, 1);
    assert.match(a.events.restarts[0]!.cause, /stop-with-savepoint with drain failed/);
    await a.master.whenRunning();
    await progress(a, 1);
    const sp = await a.master.stopWithSavepoint(join(root, 'failed-drain-savepoints'));
    await finished(a);
    const facts = await checkStopSavepoint(sp.directory, out, 'the stop after the failover');
    assert.ok(emitted(facts.splits) < WORDS, 'the input ended before the stop: make it larger');

    const b = await start({ job: WORDCOUNT, args: args(), config, restoreFrom: sp.directory });
    await finished(b);
    assertExactOutput(out, WORDS, 'after a failed drain and a failover');
  });
});

describe('restoring into a changed job', { timeout: 60_000 }, () => {
  const WORDS = 30_000;
  let base: { directory: string; id: number; metadata: CheckpointMetadata };
  let baseOut: string;
  const args = (out: string, ...extra: string[]) => ['--words', String(WORDS), '--seed', String(SEED), '--output', out, ...extra];
  const config = { 'parallelism.default': 2, 'restart-strategy.type': 'none' };
  let n = 0;
  /** A copy of the base run's output, for one continuation. */
  const outputCopy = () => {
    const dir = join(root, `evolution-out-${++n}`);
    cpSync(baseOut, dir, { recursive: true });
    return dir;
  };

  before(async () => {
    baseOut = join(root, 'evolution-base-out');
    const job = await start({ job: EVOLUTION, args: args(baseOut, '--rate', '8000', '--checkpoint-interval', '100'), config });
    await job.master.whenRunning();
    await progress(job, 2);
    const sp = await job.master.stopWithSavepoint(join(root, 'evolution-savepoints'));
    await finished(job);
    base = sp;
    const facts = await checkStopSavepoint(sp.directory, baseOut, 'base version');
    assert.ok(emitted(facts.splits) < WORDS, 'the input ended before the stop: make it larger');
    const uids = sp.metadata.operators.map((o) => o.uid);
    for (const uid of ['source', 'counts', 'sink', 'stats', 'audit']) assert.ok(uids.includes(uid), `the savepoint has ${uid}: ${uids.join(', ')}`);
  });

  test('a stateless operator added: the job restores and finishes exactly-once', async () => {
    const out = outputCopy();
    const job = await start({ job: EVOLUTION, args: args(out, '--variant', 'added'), config, restoreFrom: base.directory });
    await finished(job);
    assert.equal(job.events.restored.length, 1);
    assert.ok(job.master.graph.vertices.some((v) => v.operators.some((o) => o.uid === 'added-filter')), 'the new version has the added operator');
    assertExactOutput(out, WORDS, 'with an added operator');
  });

  test('stateful operators removed: RestoreError naming every unmatched uid and state; nothing runs', async () => {
    const out = outputCopy();
    const before = readCommittedLines(out);
    const job = await start({ job: EVOLUTION, args: args(out, '--variant', 'dropped'), config, restoreFrom: base.directory });
    const r = await job.result;
    assert.equal(r.status, 'FAILED');
    assert.ok(r.error instanceof RestoreError, `a RestoreError, got ${r.error?.name}: ${r.error?.message}`);
    const unmatched = r.error.unmatched.map((u) => ({ uid: u.uid, name: u.name, states: [...u.states].sort() })).sort((x, y) => x.uid.localeCompare(y.uid));
    assert.deepEqual(unmatched, [
      { uid: 'audit', name: 'Sink: audit', states: ['_sink-writer'] },
      { uid: 'stats', name: 'Stats', states: ['longest', 'seen'] },
    ]);
    for (const text of ["uid 'stats'", "uid 'audit'", 'seen', 'longest', '_sink-writer', base.directory, 'allow-non-restored-state']) {
      assert.ok(r.error.message.includes(text), `the message names ${text}: ${r.error.message}`);
    }
    assert.equal(job.events.statuses.includes('RUNNING'), false, 'no attempt was deployed');
    assert.deepEqual(readCommittedLines(out), before, 'nothing was committed');
  });

  test('stateful operators removed, with allowNonRestoredState: the rest restores and finishes exactly-once', async () => {
    const out = outputCopy();
    const job = await start({ job: EVOLUTION, args: args(out, '--variant', 'dropped'), config, restoreFrom: base.directory, allowNonRestoredState: true });
    await finished(job);
    assertExactOutput(out, WORDS, 'without the dropped operators');
  });

  test('another maxParallelism: RestoreError saying maxParallelism cannot change', async () => {
    const out = outputCopy();
    const job = await start({ job: EVOLUTION, args: args(out, '--max-parallelism', '256'), config, restoreFrom: base.directory });
    const r = await job.result;
    assert.equal(r.status, 'FAILED');
    assert.ok(r.error instanceof RestoreError, `a RestoreError, got ${r.error?.name}: ${r.error?.message}`);
    assert.match(r.error.message, /operator uid '(counts|stats)' has keyed state for maxParallelism 128, the job now has maxParallelism 256; maxParallelism cannot change/);
  });

  test('a savepoint whose _metadata is in format version 1 still restores', async () => {
    const v1 = join(root, 'savepoint-v1');
    cpSync(base.directory, v1, { recursive: true });
    const { metadata } = await readMetadata(base.directory);
    assert.equal(metadata.formatVersion, METADATA_VERSION);
    // What the first format held: no connections.
    const { edges: _edges, coordinators: _coordinators, ...old } = { ...metadata, formatVersion: 1 };
    await writeMetadata(v1, old as CheckpointMetadata, 1);
    assert.equal(readFileSync(join(v1, METADATA_FILE)).readUInt32BE(8), 1, 'the file says format 1');
    const read = await readMetadata(v1);
    assert.equal(read.metadata.formatVersion, 1);
    assert.equal(read.metadata.edges, undefined);

    const out = outputCopy();
    const job = await start({ job: EVOLUTION, args: args(out), config, restoreFrom: v1 });
    await finished(job);
    assert.deepEqual(job.events.restored, [{ checkpointId: base.id, path: v1, isSavepoint: true }]);
    assertExactOutput(out, WORDS, 'from the v1 savepoint');
    assert.ok(existsSync(base.directory), 'restoring does not touch the savepoint');
  });
});
