// `weir run` killed with SIGKILL (no chance to clean up) and resumed with --from-savepoint from the
// newest retained checkpoint, several times over, then run to its end: the committed output of
// the word count must be exactly what one failure-free run commits (heap state backend; the lmdb
// one in sigkill-resume-lmdb.long.test.ts).
import { after, before, test } from 'node:test';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { sigkillResumeScenario } from '../fixtures/sigkill-resume-scenario.ts';

let root: string;
before(() => {
  root = makeTempDir('sigkill');
});
after(() => removeDir(root));

test('SIGKILL and resume from the latest checkpoint, three times, then finish: exactly-once output', { timeout: 120_000 }, () => sigkillResumeScenario(root, 'heap'));
