// Snapshots written by earlier weirs (test/fixtures/snapshots/<version>/, made by
// make-fixtures.ts with the weir of that time) still restore: at their parallelism and rescaled,
// the restored word count commits exactly the running counts of its input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';
import { wordCounts } from '../fixtures/savepoint-helpers.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'snapshots');
const JOB = join(REPO_ROOT, 'examples', 'wordcount.ts');
const WORDS = 20_000;
const SEED = 13;

for (const version of ['v3', 'v4']) {
  for (const kind of ['savepoint', 'checkpoint'] as const) {
    for (const parallelism of [2, 3, 1]) {
      test(`a ${version} ${kind} restores at parallelism ${parallelism}: exactly-once output`, { timeout: 60_000 }, async (t) => {
        const dir = makeTempDir(`legacy-${kind}`);
        t.after(() => removeDir(dir));
        const output = join(dir, 'out');
        cpSync(join(FIXTURES, version, `${kind}-output`), output, { recursive: true });
        const master = await createJobMaster({
          job: JOB,
          args: ['--words', String(WORDS), '--seed', String(SEED), '--output', output],
          config: { 'parallelism.default': parallelism, 'execution.checkpointing.dir': join(dir, 'checkpoints') },
          restoreFrom: join(FIXTURES, version, kind),
          log: createLogger({ level: 'error', write: () => {} }),
        });
        const result = await master.run();
        assert.equal(result.status, 'FINISHED', result.error?.message);
        assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(SEED, WORDS))), undefined);
      });
    }
  }
}
