// Two-input jobs end to end: a keyed join of orders and payments (connect + KeyedCoProcessFunction)
// and rules-and-events with broadcast state (KeyedBroadcastProcessFunction), exactly once across
// injected failures, in this thread and on worker TaskManagers. The committed output must equal
// the independent computation of test/fixtures/two-input-data.ts, line for line.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger, executeJob } from '../../src/index.ts';
import { readSnapshot } from '../../src/checkpoint/snapshot-reader.ts';
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
    { kind: 'join', parallelism: 2, taskManagers: 0, seed: 5, count: 8000 },
    { kind: 'join', parallelism: 3, taskManagers: 2, seed: 6, count: 8000 },
    { kind: 'rules', parallelism: 2, taskManagers: 0, seed: 7, count: 8000 },
    // The rules job on worker TaskManagers is in two-input-jobs.long.test.ts.
  ];
  for (const c of cases) {
    test(`${c.kind} at p${c.parallelism} ${c.taskManagers ? `on ${c.taskManagers} worker TaskManagers` : 'in this thread'}: committed output is exact after 3 failures`, async () => {
      const dir = join(root, `${c.kind}-p${c.parallelism}-tm${c.taskManagers}`);
      const output = join(dir, 'output');
      const events = new JobEvents();
      const result = await executeJob({
        job: JOB,
        args: ['--kind', c.kind, '--output', output, '--count', String(c.count), '--rules', '20', '--rate', '4000', '--checkpoint-interval', '100'],
        config: {
          'parallelism.default': c.parallelism,
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 20,
          'restart-strategy.fixed-delay.delay': '50 ms',
        },
        taskManagers: c.taskManagers,
        // Past the first checkpoints (the rules source, 20 records, fails early when it is picked).
        faults: { failures: 3, seed: c.seed, minRecords: 1000, maxRecords: 3000 },
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

  test('rules: stop with a savepoint at p2, resume at p3: every subtask has the broadcast state, the output is exact', async () => {
    const dir = join(root, 'rules-rescale');
    const output = join(dir, 'output');
    const args = ['--kind', 'rules', '--output', output, '--count', '4000', '--rules', '20', '--rate', '2000', '--checkpoint-interval', '100'];
    const config = (p: number) => ({ 'parallelism.default': p, 'execution.checkpointing.dir': join(dir, 'checkpoints') });
    const log = createLogger({ level: 'error', write: () => {} });
    const eventsA = new JobEvents();
    const a = await createJobMaster({ job: JOB, args, config: config(2), listener: eventsA.listener, log });
    const ranA = a.run();
    // The 20 rules come at 40 a second: after a second of the run they are all in the broadcast state.
    const started = Date.now();
    await eventsA.waitFor('checkpoints for a second', () => eventsA.completed.some((c) => c.completedAt - started > 1200), 30_000);
    const savepoint = await a.stopWithSavepoint(join(dir, 'savepoints'));
    assert.equal((await ranA).status, 'FINISHED');
    const snapshot = await readSnapshot(savepoint.directory);
    const stored = snapshot.metadata.operators.find((o) => o.uid === 'thresholds')!;
    assert.equal(stored.parallelism, 2);
    for (const s of stored.subtasks) assert.equal(s.operator['rules']?.mode, 'broadcast');
    assert.deepEqual(
      stored.subtasks.map((s) => s.operator['rules']!.values.length),
      [20, 20],
      'each subtask snapshotted its own copy of all 20 rules',
    );
    assert.equal(snapshot.operators.find((o) => o.uid === 'thresholds')!.operator['rules']!.values.length, 20, 'read back, the broadcast state is one copy');
    assert.deepEqual(readCommittedLines(output), [], 'the verdicts come at the end of input only');

    const eventsB = new JobEvents();
    const b = await executeJob({ job: JOB, args, config: config(3), restoreFrom: savepoint.directory, listener: eventsB.listener, log });
    assert.equal(b.status, 'FINISHED', `${b.error?.message}; ${eventsB.describe()}`);
    const diff = diffSortedLines(readCommittedLines(output), expectedRules(4000, 20));
    assert.equal(diff, undefined, `the rescaled job's output is not exact: ${diff}`);
  });
});
