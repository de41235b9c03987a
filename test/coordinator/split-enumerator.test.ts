// Dynamic split assignment: a source whose enumerator on the JobMaster hands out ranges when readers
// ask, with injected failures. The enumerator's state is part of each checkpoint, assignments are
// ordered with the triggers, and readers re-report finished ranges after a restore, so the
// committed word count must be exact: every range read once, none lost, none twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../src/index.ts';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import {
  completeCheckpoints,
  diffSortedLines,
  expectedRunningCounts,
  JobEvents,
  makeTempDir,
  readAllLines,
  readCommittedLines,
  removeDir,
} from '../fixtures/recovery-helpers.ts';
import { weir } from '../fixtures/weir-process.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'wordcount-enumerated.ts');
const TOTAL = 20_000;

function expected(): string[] {
  const counts = new Map<string, number>();
  for (let i = 0; i < TOTAL; i++) counts.set(`w${i % 97}`, (counts.get(`w${i % 97}`) ?? 0) + 1);
  return expectedRunningCounts(counts);
}

// A bound: one at-most-once run was seen to hang under a loaded full suite (not reproduced alone); a hang must fail, not stall CI.
describe('split enumerator', { timeout: 120_000 }, () => {
  let root: string;
  before(() => (root = makeTempDir('enumerator')));
  after(() => removeDir(root));

  const cases = [
    { parallelism: 1, taskManagers: 0, seed: 31 },
    { parallelism: 3, taskManagers: 0, seed: 32 },
    { parallelism: 3, taskManagers: 2, seed: 33 },
  ];
  for (const c of cases) {
    const where = c.taskManagers === 0 ? 'in this thread' : `on ${c.taskManagers} worker TaskManagers`;
    test(`parallelism ${c.parallelism} ${where}: every range read exactly once across 4 failures`, async () => {
      const dir = join(root, `p${c.parallelism}-tm${c.taskManagers}`);
      const output = join(dir, 'output');
      const events = new JobEvents();
      const result = await executeJob({
        job: JOB,
        args: ['--output', output, '--total', String(TOTAL), '--range', '500', '--checkpoint-interval', '40'],
        config: {
          'parallelism.default': c.parallelism,
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 20,
          'restart-strategy.fixed-delay.delay': '20 ms',
        },
        taskManagers: c.taskManagers,
        faults: { failures: 4, seed: c.seed, minRecords: 500, maxRecords: 3000 },
        listener: events.listener,
        log: createLogger({ level: 'error' }),
      });
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}`);
      assert.equal(result.restarts, 4, events.describe());
      // At least one restart went through the enumerator's restored state (on a loaded machine the
      // failures may come faster than checkpoints complete, so not every restart has one).
      assert.ok(events.restored.length >= 1, `no restart restored a checkpoint: ${events.describe()}`);
      const diff = diffSortedLines(readCommittedLines(output), expected());
      assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
    });
  }

  test('at-most-once: restarts go on from where the readers and the enumerator were, nothing is read twice', async () => {
    const dir = join(root, 'at-most-once');
    const output = join(dir, 'output');
    const result = await executeJob({
      job: JOB,
      args: ['--output', output, '--total', String(TOTAL), '--range', '500', '--mode', 'at-most-once', '--sink', 'plain'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 20,
        'restart-strategy.fixed-delay.delay': '20 ms',
      },
      taskManagers: 2,
      faults: { failures: 3, seed: 8, minRecords: 1000, maxRecords: 4000, vertexNameContains: 'Source' },
      log: createLogger({ level: 'error' }),
    });
    assert.equal(result.status, 'FINISHED', result.error?.message);
    assert.equal(result.restarts, 3);
    // One line per record counted: a range handed out again after a restart would make more.
    const lines = readAllLines(output);
    assert.ok(lines.length <= TOTAL, `${lines.length} records reached the sink, the source has ${TOTAL}`);
    assert.ok(lines.length > TOTAL / 2, `only ${lines.length} records reached the sink`);
  });

  test("a checkpoint holds the enumerator's state under the source's uid", async () => {
    const dir = join(root, 'metadata');
    const result = await executeJob({
      job: JOB,
      args: ['--output', join(dir, 'output'), '--total', '5000', '--range', '100', '--checkpoint-interval', '20', '--rate', '20000'],
      config: { 'parallelism.default': 2, 'execution.checkpointing.dir': join(dir, 'checkpoints') },
      retainCheckpointsOnFinish: true,
      log: createLogger({ level: 'error' }),
    });
    assert.equal(result.status, 'FINISHED', result.error?.message);
    const checkpoints = completeCheckpoints(join(dir, 'checkpoints', result.jobId));
    assert.ok(checkpoints.length > 0);
    const { metadata } = await readMetadata(checkpoints.at(-1)!.dir);
    const state = metadata.coordinators?.['source'] as { nextRange: number; outstanding: number[]; done: number[] } | undefined;
    assert.ok(state, `no enumerator state in ${JSON.stringify(Object.keys(metadata.coordinators ?? {}))}`);
    // The final checkpoint comes after every range was read and reported.
    assert.equal(state.nextRange, 50);
    assert.deepEqual(state.outstanding, []);
    assert.deepEqual(state.done, Array.from({ length: 50 }, (_, i) => i));

    // weir inspect shows it with the source's operator.
    const inspect = await weir(['inspect', checkpoints.at(-1)!.dir]);
    assert.equal(inspect.code, 0, inspect.stderr);
    assert.match(inspect.stdout, /operator 'Source: ranges'  uid source[^\n]*\n(?:  .*\n)*  split enumerator state: nextRange 50, outstanding \[0\], done \[50\]/);
  });
});
