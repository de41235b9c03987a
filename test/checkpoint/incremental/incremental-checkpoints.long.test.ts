// Incremental checkpoints on the lmdb and the heap backend in running jobs: the word count's committed output
// is exact after 5 injected failures (in this thread and on worker TaskManagers); after 50 and
// more checkpoints with num-retained 3 the only shared files left are those the 3 retained
// checkpoints' _metadata name; and a job restored from another job's incremental checkpoint at
// another parallelism (a rescale; NO_CLAIM) finishes with exact output, writes a full first
// checkpoint, and leaves the other job's files where they were.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, createLogger, executeJob } from '../../../src/index.ts';
import { checkpointDetails, checkpointsOverview } from '../../../src/rest/checkpoint-views.ts';
import { readMetadata, type CheckpointMetadata } from '../../../src/checkpoint/checkpoint-metadata.ts';
import { sharedFileBaseName, sharedStateFiles } from '../../../src/checkpoint/incremental/shared-state-files.ts';
import { verifyCheckpointFiles } from '../../../src/checkpoint/verify-checkpoint-files.ts';
import type { CompletedCheckpoint } from '../../../src/coordinator/completed-checkpoint.ts';
import { diffSortedLines, expectedRunningCounts, JobEvents, makeTempDir, readCommittedLines, removeDir, writeWordsFile } from '../../fixtures/recovery-helpers.ts';
import { STATE_BACKENDS, stateBackendConfig } from '../../fixtures/state-backends.ts';
import type { StateBackendType } from '../../../src/state/state-backend.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'wordcount-throttled.ts');

const incrementalOn = (type: StateBackendType) => ({ ...stateBackendConfig(type), 'execution.checkpointing.incremental': true, 'execution.checkpointing.incremental.max-deltas': 3 });

let root: string;
let input: string;
let expected: string[];
let words: number;
before(() => {
  root = makeTempDir('incremental');
  input = join(root, 'words.txt');
  const generated = writeWordsFile(input, { seed: 20241204, bytes: 150_000, vocabulary: 4000 });
  words = generated.words;
  expected = expectedRunningCounts(generated.counts);
});
after(() => removeDir(root));

/** The retained checkpoints of a job location: chk-<n> directories with a _metadata. */
async function retained(jobDir: string) {
  const out = [];
  for (const name of readdirSync(jobDir).filter((n) => n.startsWith('chk-'))) {
    if (!existsSync(join(jobDir, name, '_metadata'))) continue;
    out.push(await readMetadata(join(jobDir, name)));
  }
  return out.sort((a, b) => a.metadata.checkpointId - b.metadata.checkpointId);
}

const countsHandles = (m: CheckpointMetadata) => m.operators.find((o) => o.uid === 'counts')!.subtasks.map((s) => s.keyed);

/**
 * After each restore of a checkpoint whose non-empty chains were not due to materialize (fewer than
 * max-deltas deltas, no more delta bytes than base), the next completed checkpoint builds on the
 * restored chains: same bases, the restored deltas, then its own (it does not write all again).
 */
function assertRestoredChainsReused(sequence: ReadonlyArray<{ restored: number } | { completed: CheckpointMetadata }>): void {
  const byId = new Map(sequence.flatMap((e) => ('completed' in e ? [[e.completed.checkpointId, e.completed] as const] : [])));
  let checked = 0;
  sequence.forEach((e, i) => {
    if (!('restored' in e)) return;
    const restored = byId.get(e.restored);
    const next = sequence.slice(i + 1).find((x) => 'completed' in x && x.completed.checkpointId > e.restored);
    if (!restored || !next || !('completed' in next)) return;
    const before = countsHandles(restored);
    const after = countsHandles(next.completed);
    before.forEach((h, subtask) => {
      const deltas = h?.deltas ?? [];
      // An empty chain (no key group in it) is not restored from, so nothing is built on it.
      if (!h || [h, ...deltas].every((f) => f.keyGroups.length === 0)) return;
      if (deltas.length >= 3 || deltas.reduce((n, d) => n + d.bytes, 0) > h.bytes) return;
      const a = after[subtask]!;
      assert.equal(a.file, h.file, `checkpoint ${next.completed.checkpointId} subtask ${subtask} builds on the base checkpoint ${e.restored} restored`);
      assert.deepEqual((a.deltas ?? []).slice(0, deltas.length), deltas);
      checked++;
    });
  });
  assert.ok(checked > 0, 'no restore was of a chain a checkpoint could build on');
}

function assertExact(output: string): void {
  const lines = readCommittedLines(output);
  assert.equal(lines.length, words, `committed ${lines.length} lines for ${words} words`);
  const diff = diffSortedLines(lines, expected);
  assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
}

for (const backend of STATE_BACKENDS) describe(`incremental checkpoints on the ${backend} backend`, () => {
  const INCREMENTAL = incrementalOn(backend);
  for (const c of [
    { parallelism: 2, taskManagers: 0, seed: 51 },
    { parallelism: 3, taskManagers: 3, seed: 52 },
  ]) {
    const where = c.taskManagers === 0 ? 'in this thread' : `on ${c.taskManagers} worker TaskManagers`;
    test(`exactly-once: parallelism ${c.parallelism} ${where}, committed output is exact after 5 failures`, async () => {
      const dir = join(root, `${backend}-eo-p${c.parallelism}-tm${c.taskManagers}`);
      const output = join(dir, 'output');
      const events = new JobEvents();
      // Restores and completions in the order they happened, with each completed checkpoint's metadata.
      const sequence: Array<{ restored: number } | { completed: CheckpointMetadata }> = [];
      const result = await executeJob({
        job: JOB,
        jobId: `eo-${c.seed}`,
        args: ['--input', input, '--output', output, '--checkpoint-interval', '100', '--lines-per-second', '6000'],
        config: {
          'parallelism.default': c.parallelism,
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'execution.checkpointing.num-retained': 2,
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 20,
          'restart-strategy.fixed-delay.delay': '50 ms',
          ...INCREMENTAL,
        },
        taskManagers: c.taskManagers,
        faults: { failures: 5, seed: c.seed, minRecords: 300, maxRecords: 2500 },
        listener: {
          ...events.listener,
          onCheckpointCompleted: (cp) => {
            events.listener.onCheckpointCompleted?.(cp);
            sequence.push({ completed: cp.metadata });
          },
          onRestored: (r) => {
            events.listener.onRestored?.(r);
            sequence.push({ restored: r.checkpointId });
          },
        },
        log: createLogger({ level: 'error' }),
        retainCheckpointsOnFinish: true,
      });
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
      assert.equal(result.restarts, 5, `unexpected restarts: ${events.describe()}`);
      assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
      assertExact(output);
      // The retained checkpoints are incremental: shared files only, and some with deltas.
      const kept = await retained(join(dir, 'checkpoints', `eo-${c.seed}`));
      assert.ok(kept.length > 0);
      for (const k of kept) {
        const keyed = k.metadata.operators.find((o) => o.uid === 'counts')!.subtasks.map((s) => s.keyed!);
        assert.ok(keyed.every((h) => h.file.startsWith('../shared/')), `checkpoint ${k.metadata.checkpointId} has keyed state outside shared/`);
        await verifyCheckpointFiles(k.metadata, k.directory);
      }
      assertRestoredChainsReused(sequence);
    });
  }

  test('retention in a running job: with num-retained 3, shared/ holds exactly the files the 3 retained checkpoints name', async () => {
    const dir = join(root, `${backend}-retention`);
    const output = join(dir, 'output');
    const events = new JobEvents();
    const master = await createJobMaster({
      job: JOB,
      jobId: 'retention',
      args: ['--input', input, '--output', output, '--checkpoint-interval', '20', '--lines-per-second', '1500'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'execution.checkpointing.num-retained': 3,
        ...INCREMENTAL,
      },
      listener: events.listener,
      log: createLogger({ level: 'error' }),
      retainCheckpointsOnFinish: true,
    });
    const result = await master.run();
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
    // REST (Flink's fields): checkpointed_size is what each checkpoint wrote, state_size the full
    // size; a delta checkpoint wrote less than its full size, a full base as much.
    const overview = checkpointsOverview(master);
    const done = overview.history.filter((h) => h.status === 'COMPLETED' && !h.is_savepoint);
    assert.ok(done.some((h) => h.checkpointed_size < h.state_size), `no checkpoint wrote less than its state: ${JSON.stringify(done.map((h) => [h.checkpointed_size, h.state_size]))}`);
    assert.ok(done.every((h) => h.checkpointed_size <= h.state_size));
    const details = checkpointDetails(master, done.at(-1)!.id);
    const sum = Object.values(details.tasks).reduce((n, t) => n + t.checkpointed_size, 0);
    assert.equal(sum, done.at(-1)!.checkpointed_size, 'the vertices\' checkpointed sizes add up to the checkpoint\'s');
    // How many complete depends on the machine's load; incremental-retention.test.ts takes exactly 50, step by step.
    assert.ok(events.completed.length >= 10, `only ${events.completed.length} checkpoints completed`);
    assertExact(output);
    const jobDir = join(dir, 'checkpoints', 'retention');
    const kept = await retained(jobDir);
    assert.deepEqual(
      kept.map((k) => k.metadata.checkpointId),
      events.completed.slice(-3).map((c) => c.id),
      'the 3 latest completed checkpoints are retained',
    );
    assert.deepEqual(readdirSync(jobDir).filter((n) => n.startsWith('chk-')).sort(), kept.map((k) => `chk-${k.metadata.checkpointId}`).sort(), 'no other checkpoint directory is left');
    const referenced = new Set(kept.flatMap((k) => sharedStateFiles(k.metadata).map(sharedFileBaseName)));
    assert.deepEqual(readdirSync(join(jobDir, 'shared')).sort(), [...referenced].sort(), 'shared/ holds exactly the files a retained checkpoint names');
    // Some retained checkpoint builds on files written for an earlier one (they are shared).
    const writtenEarlier = kept.some((k) => k.metadata.operators.some((o) => o.subtasks.some((s) => s.keyed?.writtenBy !== undefined && s.keyed.writtenBy < k.metadata.checkpointId)));
    assert.ok(writtenEarlier, 'no retained checkpoint shares a file with an earlier one');
  });

  test('rescale and NO_CLAIM: a job restored at parallelism 3 from another job\'s incremental checkpoint at 2 finishes exact, writes a full first checkpoint, and leaves that job\'s files', async () => {
    const dir = join(root, `${backend}-rescale`);
    const output = join(dir, 'output');
    const failNow = join(dir, 'fail-now');
    const checkpoints = join(dir, 'checkpoints');
    const first = new JobEvents();
    // Fail right after a checkpoint with deltas completed (the next one is 200 ms away): the restore reads a chain.
    const listener = {
      ...first.listener,
      onCheckpointCompleted: (c: CompletedCheckpoint) => {
        first.listener.onCheckpointCompleted?.(c);
        const chained = c.metadata.operators.find((o) => o.uid === 'counts')?.subtasks.some((s) => (s.keyed?.deltas?.length ?? 0) > 0);
        if (first.completed.length >= 4 && chained && !existsSync(failNow)) writeFileSync(failNow, '');
      },
    };
    const failed = await executeJob({
      job: JOB,
      jobId: 'first',
      // The heap writes a full base when more than a fifth of its entries changed since the last
      // checkpoint: a slower first job changes few enough of the 4,000 words per interval for deltas.
      args: ['--input', input, '--output', output, '--checkpoint-interval', '200', '--lines-per-second', backend === 'heap' ? '300' : '2000', '--fail-when', failNow],
      config: { 'parallelism.default': 2, 'execution.checkpointing.dir': checkpoints, 'execution.checkpointing.num-retained': 2, 'restart-strategy.type': 'none', ...INCREMENTAL },
      listener,
      log: createLogger({ level: 'error' }),
    });
    assert.equal(failed.status, 'FAILED');
    const firstKept = await retained(join(checkpoints, 'first'));
    const latest = firstKept.at(-1)!;
    assert.ok(latest.metadata.operators.find((o) => o.uid === 'counts')!.subtasks.some((s) => (s.keyed?.deltas?.length ?? 0) > 0), 'the first job\'s latest checkpoint has deltas');
    // (A checkpoint the failure aborted may still be taking its files back: only the retained ones' files are the first job's to keep.)
    const firstShared = [...new Set(firstKept.flatMap((k) => sharedStateFiles(k.metadata).map(sharedFileBaseName)))].sort();

    const second = new JobEvents();
    const finished = await executeJob({
      job: JOB,
      jobId: 'second',
      restoreFrom: latest.directory,
      args: ['--input', input, '--output', output, '--checkpoint-interval', '60', '--lines-per-second', '3000'],
      config: { 'parallelism.default': 3, 'execution.checkpointing.dir': checkpoints, 'execution.checkpointing.num-retained': 1, ...INCREMENTAL },
      listener: second.listener,
      log: createLogger({ level: 'error' }),
      retainCheckpointsOnFinish: true,
    });
    assert.equal(finished.status, 'FINISHED', `job did not finish: ${finished.error?.message}`);
    assert.equal(second.restored[0]?.checkpointId, latest.metadata.checkpointId);
    assertExact(output);
    // The second job never names the first one's files (its first checkpoint was a full base: a
    // chain built on the first job's would name files its own shared/ does not have), and those
    // files are all still there and whole.
    const secondKept = await retained(join(checkpoints, 'second'));
    for (const k of secondKept) for (const f of sharedStateFiles(k.metadata)) assert.ok(existsSync(join(k.directory, f)), `${f} of the second job is missing`);
    const left = new Set(readdirSync(join(checkpoints, 'first', 'shared')));
    assert.deepEqual(firstShared.filter((f) => !left.has(f)), [], 'files of the first job\'s retained checkpoints are gone');
    for (const k of firstKept) await verifyCheckpointFiles(k.metadata, k.directory);
  });
});
