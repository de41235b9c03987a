// `weir stop --savepoint` mid-stream and `weir run -s`, quickly: a datagen job at p2, stopped and
// resumed, commits exactly what a run that never stopped does. The CDC source's quick case is
// test/it/cdc-stop-with-savepoint.long.test.ts; every source kind (datagen, collection, text files,
// MySQL CDC) at p1 and p2, with and without --drain, is in stop-with-savepoint-sources.long.test.ts,
// where a new source adds its case (see test/fixtures/stop-and-resume.ts).
import { after, before, test } from 'node:test';
import { boundedSourceCase, stopAndResume } from '../fixtures/stop-and-resume.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weirEnv } from '../fixtures/weir-process.ts';

let root: string;
before(() => {
  root = makeTempDir('stop-sources');
});
after(() => removeDir(root));

test('datagen at p2: stopped with a savepoint and resumed, the same output as a run that never stopped', { timeout: 120_000 }, async (t) => {
  const r = await stopAndResume(boundedSourceCase('datagen', { parallelism: 2, drain: false, root }), root, weirEnv(root));
  t.diagnostic(`${r.beforeStop} of ${r.total} lines committed before the stop`);
});
