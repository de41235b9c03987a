// Exactly-once under failures: a running word count with the transactional FileSink, five injected
// task failures per run, at parallelism 1..4, with all subtasks in this thread and on worker-thread
// TaskManagers. The committed output must be exactly `w\t1` .. `w\tn` for every word w that occurs
// n times in the input, each line once: nothing lost, nothing duplicated.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../src/index.ts';
import {
  diffSortedLines,
  expectedRunningCounts,
  JobEvents,
  makeTempDir,
  readCommittedLines,
  removeDir,
  writeWordsFile,
} from '../fixtures/recovery-helpers.ts';
import { stateBackendConfig } from '../fixtures/state-backends.ts';
import type { StateBackendType } from '../../src/state/state-backend.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'wordcount-throttled.ts');

describe('exactly-once word count with injected failures', () => {
  let root: string;
  let input: string;
  let expected: string[];
  let words: number;

  before(() => {
    root = makeTempDir('exactly-once');
    input = join(root, 'words.txt');
    const generated = writeWordsFile(input, { seed: 20240601, bytes: 150_000 });
    words = generated.words;
    expected = expectedRunningCounts(generated.counts);
  });
  after(() => removeDir(root));

  const cases = [
    { parallelism: 1, taskManagers: 0, seed: 11 },
    { parallelism: 2, taskManagers: 0, seed: 12 },
    { parallelism: 3, taskManagers: 0, seed: 13 },
    { parallelism: 4, taskManagers: 0, seed: 14 },
    { parallelism: 2, taskManagers: 2, seed: 21 },
    { parallelism: 3, taskManagers: 3, seed: 22 },
    { parallelism: 4, taskManagers: 2, seed: 23 },
    { parallelism: 2, taskManagers: 0, seed: 31, backend: 'lmdb' },
    { parallelism: 3, taskManagers: 3, seed: 32, backend: 'lmdb' },
  ] as Array<{ parallelism: number; taskManagers: number; seed: number; backend?: StateBackendType }>;

  for (const c of cases) {
    const where = c.taskManagers === 0 ? 'in this thread' : `on ${c.taskManagers} worker TaskManagers`;
    const backend = c.backend ?? 'heap';
    test(`parallelism ${c.parallelism} ${where}, ${backend} state backend: committed output is exact after 5 failures`, async () => {
      const dir = join(root, `p${c.parallelism}-tm${c.taskManagers}-${backend}`);
      const output = join(dir, 'output');
      const events = new JobEvents();
      const result = await executeJob({
        job: JOB,
        args: ['--input', input, '--output', output, '--checkpoint-interval', '100', '--lines-per-second', '8000'],
        config: {
          'parallelism.default': c.parallelism,
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 20,
          'restart-strategy.fixed-delay.delay': '50 ms',
          ...stateBackendConfig(backend),
        },
        taskManagers: c.taskManagers,
        faults: { failures: 5, seed: c.seed, minRecords: 300, maxRecords: 2500 },
        listener: events.listener,
        log: createLogger({ level: 'error' }),
      });
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
      assert.equal(result.injectedFailures, 5);
      assert.equal(result.restarts, 5, `unexpected restarts: ${events.describe()}`);
      // The failures must come between checkpoints, not only before the first one: some
      // restarts restore a checkpoint, and so replay input that was read before.
      assert.ok(events.restored.length >= 2, `no restart restored a checkpoint: ${events.describe()}`);
      assert.ok(events.completed.length >= 3, `too few checkpoints completed: ${events.describe()}`);

      if (process.env.WEIR_TEST_DEBUG) console.log(events.describe());
      const lines = readCommittedLines(output);
      assert.equal(lines.length, words, `committed ${lines.length} lines for ${words} words`);
      const diff = diffSortedLines(lines, expected);
      assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
      // Nothing half-done remains visible or hidden: every attempt's files were committed or discarded.
      const hidden = readdirSync(output).filter((n) => n.startsWith('.'));
      assert.deepEqual(hidden, [], 'hidden in-progress or pending files were left behind');
    });
  }

  // A checkpoint whose acknowledgements were all in when a task failed may still be writing its
  // _metadata during the failover. If it completed after the restart had chosen the checkpoint
  // before it, it subsumed (deleted) that one while the new attempt was reading it, and the
  // restart failed with "cannot be read: ENOENT" (or, worse, the FileSink files it referred to
  // were gone and every later restore failed). Checkpoints every 10 ms and restarts without
  // delay make that window likely enough to see in one or two runs.
  test('checkpoints every 10 ms and restarts without delay: only the injected failures happen', async () => {
    for (const seed of [41, 42]) {
      const dir = join(root, `rapid-${seed}`);
      const output = join(dir, 'output');
      const events = new JobEvents();
      const result = await executeJob({
        job: JOB,
        args: ['--input', input, '--output', output, '--checkpoint-interval', '10', '--lines-per-second', '8000'],
        config: {
          'parallelism.default': 2,
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 40,
          'restart-strategy.fixed-delay.delay': '0 ms',
        },
        faults: { failures: 30, seed, minRecords: 100, maxRecords: 1500 },
        listener: events.listener,
        log: createLogger({ level: 'error', write: () => {} }),
      });
      const other = events.restarts.filter((r) => !r.cause.startsWith('InjectedFailure: '));
      assert.deepEqual(other, [], 'a restart failed for another reason than an injected failure');
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
      assert.equal(result.injectedFailures, 30);
      const diff = diffSortedLines(readCommittedLines(output), expected);
      assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
    }
  });
});
