// Two-input jobs end to end: a keyed join of orders and payments (connect + KeyedCoProcessFunction)
// and rules-and-events with broadcast state (KeyedBroadcastProcessFunction), exactly once across
// injected failures, in this thread and on worker TaskManagers. The committed output must equal
// the independent computation of test/fixtures/two-input-data.ts, line for line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../src/index.ts';
import { diffSortedLines, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { expectedJoin, expectedRules } from '../fixtures/two-input-data.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'two-inputs.ts');

describe('two-input jobs, exactly once across failures', () => {
  let root: string;
  before(() => {
    root = makeTempDir('two-input-jobs');
  });
  after(() => removeDir(root));

  const cases = [
    { kind: 'join', parallelism: 2, taskManagers: 0, seed: 5, count: 3000 },
    { kind: 'join', parallelism: 3, taskManagers: 2, seed: 6, count: 5000 },
    { kind: 'rules', parallelism: 2, taskManagers: 0, seed: 7, count: 3000 },
    { kind: 'rules', parallelism: 3, taskManagers: 2, seed: 8, count: 5000 },
  ];
  for (const c of cases) {
    test(`${c.kind} at p${c.parallelism} ${c.taskManagers ? `on ${c.taskManagers} worker TaskManagers` : 'in this thread'}: committed output is exact after 3 failures`, async () => {
      const dir = join(root, `${c.kind}-p${c.parallelism}-tm${c.taskManagers}`);
      const output = join(dir, 'output');
      const events = new JobEvents();
      const result = await executeJob({
        job: JOB,
        args: ['--kind', c.kind, '--output', output, '--count', String(c.count), '--rules', '20', '--rate', '6000', '--checkpoint-interval', '100'],
        config: {
          'parallelism.default': c.parallelism,
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 20,
          'restart-strategy.fixed-delay.delay': '50 ms',
        },
        taskManagers: c.taskManagers,
        faults: { failures: 3, seed: c.seed, minRecords: 300, maxRecords: 1500 },
        listener: events.listener,
        log: createLogger({ level: 'error', write: () => {} }),
      });
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}; ${events.describe()}`);
      assert.equal(result.injectedFailures, 3);
      const expected = c.kind === 'join' ? expectedJoin(c.count) : expectedRules(c.count, 20);
      assert.ok(expected.length > 100, 'the expectation has lines to compare');
      const diff = diffSortedLines(readCommittedLines(output), expected);
      assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
      // Some restart must have restored state (and so replayed input read before), not only started afresh.
      assert.ok(events.restored.length >= 1, `no restart restored a checkpoint: ${events.describe()}`);
    });
  }
});
