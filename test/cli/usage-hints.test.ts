// What the command line says when a new user gets it slightly wrong: a job's option written before
// `--` (weir run, weir verify), and weir inspect of a path that is not there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weir, weirEnv } from '../fixtures/weir-process.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'failing.ts');
let root: string;
before(() => (root = makeTempDir('usage-hints')));
after(() => removeDir(root));

test("weir run / weir verify with a job's option before --: the error says that job arguments go after --", async () => {
  for (const command of ['run', 'verify']) {
    const r = await weir([command, JOB, '--output', 'x'], weirEnv(root));
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^error: unknown option '--output': not an option of weir ${command}; the job's own arguments go after --, as in: weir ${command} <job> \\[options\\] -- --output \\.\\.\\.$`, 'm'));
  }
  // Other usage errors are as before.
  const missing = await weir(['run'], weirEnv(root));
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: missing required argument 'job'$/m);
  assert.doesNotMatch(missing.stderr, /go after --/);
});

test('weir inspect of a path that does not exist says so (exit 2), not that _metadata is missing', async () => {
  const missing = join(root, 'savepoints', 'savepoint-typo');
  const r = await weir(['inspect', missing], weirEnv(root));
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, new RegExp(`^weir: ${missing.replace(/[.]/g, '\\.')} does not exist: weir inspect reads a savepoint or checkpoint directory`, 'm'));
  assert.doesNotMatch(r.stderr, /no _metadata here/);
});
