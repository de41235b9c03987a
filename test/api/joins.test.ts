// Window and interval joins end to end: the committed output must equal a nested-loop join of
// both inputs computed in the test (test/fixtures/join-data.ts), line for line, at p1..3, in this
// thread and on worker TaskManagers, with and without injected failures (the joins' buffers are
// keyed state: a restart that restored a checkpoint neither loses nor repeats a pair).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createLogger, executeJob } from '../../src/index.ts';
import { diffSortedLines, JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { stateBackendConfig } from '../fixtures/state-backends.ts';
import { expectedCoGroup, expectedIntervalJoin, expectedWindowJoin } from '../fixtures/join-data.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'joins.ts');
const COUNT = 3000;

describe('joins equal a nested-loop join of their inputs', () => {
  let root: string;
  before(() => {
    root = makeTempDir('joins');
  });
  after(() => removeDir(root));

  const expected = { interval: expectedIntervalJoin(COUNT), window: expectedWindowJoin(COUNT), cogroup: expectedCoGroup(COUNT) };
  const cases = [
    { kind: 'interval', parallelism: 1, taskManagers: 0, failures: 0 },
    { kind: 'interval', parallelism: 2, taskManagers: 0, failures: 3 },
    { kind: 'interval', parallelism: 3, taskManagers: 2, failures: 2 },
    { kind: 'window', parallelism: 1, taskManagers: 0, failures: 0 },
    { kind: 'window', parallelism: 3, taskManagers: 0, failures: 3 },
    { kind: 'window', parallelism: 2, taskManagers: 2, failures: 2 },
    { kind: 'cogroup', parallelism: 2, taskManagers: 0, failures: 2 },
    // The joins' state on the lmdb backend (its entries leave a 16-entry cache all the time).
    { kind: 'interval', parallelism: 2, taskManagers: 0, failures: 2, backend: 'lmdb' },
    { kind: 'window', parallelism: 2, taskManagers: 0, failures: 2, backend: 'lmdb' },
  ] as const;
  for (const [n, c] of cases.entries()) {
    const where = c.taskManagers ? `on ${c.taskManagers} worker TaskManagers` : 'in this thread';
    const backend = 'backend' in c ? c.backend : 'heap';
    test(`${c.kind} join at p${c.parallelism} ${where}, ${backend} state${c.failures ? `, across ${c.failures} injected failures` : ''}`, async () => {
      const dir = join(root, `${c.kind}-p${c.parallelism}-tm${c.taskManagers}-f${c.failures}-${backend}`);
      const output = join(dir, 'output');
      const events = new JobEvents();
      const result = await executeJob({
        job: JOB,
        // With failures, slower: under load the first checkpoint of a run on worker TaskManagers
        // can take a second, and failures that all come before it restore nothing.
        args: ['--kind', c.kind, '--output', output, '--count', String(COUNT), '--rate', c.failures > 0 ? '1500' : '3000', '--checkpoint-interval', '100'],
        config: {
          'parallelism.default': c.parallelism,
          ...stateBackendConfig(backend),
          'execution.checkpointing.dir': join(dir, 'checkpoints'),
          'restart-strategy.type': 'fixed-delay',
          'restart-strategy.fixed-delay.attempts': 20,
          'restart-strategy.fixed-delay.delay': '50 ms',
        },
        taskManagers: c.taskManagers,
        ...(c.failures > 0 ? { faults: { failures: c.failures, seed: 11 + n, minRecords: 800, maxRecords: 2500 } } : {}),
        listener: events.listener,
        log: createLogger({ level: 'error', write: () => {} }),
      });
      assert.equal(result.status, 'FINISHED', `job did not finish: ${result.error?.message}; ${events.describe()}`);
      assert.equal(result.injectedFailures ?? 0, c.failures);
      const want = expected[c.kind];
      assert.ok(want.length > 500, `the expectation has lines to compare (${want.length})`);
      const diff = diffSortedLines(readCommittedLines(output), want);
      assert.equal(diff, undefined, `committed output differs from the nested-loop join: ${diff}`);
      if (c.failures > 0) assert.ok(events.restored.length >= 1, `no restart restored a checkpoint: ${events.describe()}`);
    });
  }
});
