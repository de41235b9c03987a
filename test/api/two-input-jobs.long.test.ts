// The rules-and-events job (broadcast state + keyed side) on worker TaskManagers, exactly once
// across injected failures: the committed output equals test/fixtures/two-input-data.ts's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../src/index.ts';
import { diffSortedLines, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { expectedRules } from '../fixtures/two-input-data.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'two-inputs.ts');
let root: string;
before(() => {
  root = makeTempDir('two-input-jobs-long');
});
after(() => removeDir(root));

for (const c of [
  { parallelism: 3, taskManagers: 2, seed: 8 },
  { parallelism: 2, taskManagers: 3, seed: 9 },
]) {
  test(`rules at p${c.parallelism} on ${c.taskManagers} worker TaskManagers: committed output is exact after 4 failures`, async () => {
    const dir = join(root, `rules-p${c.parallelism}-tm${c.taskManagers}`);
    const output = join(dir, 'output');
    const events = new JobEvents();
    const result = await executeJob({
      job: JOB,
      args: ['--kind', 'rules', '--output', output, '--count', '12000', '--rules', '30', '--rate', '4000', '--checkpoint-interval', '100'],
      config: {
        'parallelism.default': c.parallelism,
        'execution.checkpointing.dir': join(dir, 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 20,
        'restart-strategy.fixed-delay.delay': '50 ms',
      },
      taskManagers: c.taskManagers,
      faults: { failures: 4, seed: c.seed, minRecords: 1000, maxRecords: 4000 },
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}; ${events.describe()}`);
    const diff = diffSortedLines(readCommittedLines(output), expectedRules(12000, 30));
    assert.equal(diff, undefined, `committed output is not exactly-once: ${diff}`);
    assert.ok(events.restored.length >= 1, `no restart restored a checkpoint: ${events.describe()}`);
  });
}
