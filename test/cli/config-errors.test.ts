// `weir run` with bad settings on its command line or in its --config file: it stops before the job
// starts, with exit code 2 and one line that names the key (and where it came from).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weir } from '../fixtures/weir-process.ts';

const JOB = 'test/fixtures/jobs/failing.ts';

/** Runs `weir run JOB <flags>`; a job that starts would print its Job ID on stdout. */
const weirRun = (flags: readonly string[]) => weir(['run', JOB, ...flags]);

test('-D rest.port=99999 is refused by the configuration check, naming the key, before the job starts', async () => {
  const r = await weirRun(['-D', 'rest.port=99999']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /configuration key 'rest\.port': must be at most 65535, got 99999/);
  assert.doesNotMatch(r.stdout, /Job ID/, 'the job did not start');
});

test('-D key= (an empty value) is refused, naming the key and how to write a value, before the job starts', async () => {
  const r = await weirRun(['-D', 'execution.checkpointing.interval=']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /configuration key 'execution\.checkpointing\.interval': '-D execution\.checkpointing\.interval=' has an empty value: write one \(e\.g\. -D execution\.checkpointing\.interval='10 s'\)/);
  assert.doesNotMatch(r.stdout, /Job ID/, 'the job did not start');
});

test('--config: a bad value in the file names the file and the key; a missing file names the file, not a key', async () => {
  const dir = makeTempDir('config-errors');
  try {
    const path = join(dir, 'conf.yaml');
    writeFileSync(path, 'execution.checkpointing:\n  interval: soon\n');
    const bad = await weirRun(['--config', path]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.ok(bad.stderr.includes(`weir: config file ${path}: configuration key 'execution.checkpointing.interval': expected a duration`), bad.stderr);
    const missing = join(dir, 'missing.yaml');
    const gone = await weirRun(['--config', missing]);
    assert.equal(gone.code, 2, gone.stderr);
    assert.ok(gone.stderr.includes(`weir: config file ${missing}: cannot read it`), gone.stderr);
    assert.doesNotMatch(gone.stderr, /configuration key/);
  } finally {
    removeDir(dir);
  }
});
