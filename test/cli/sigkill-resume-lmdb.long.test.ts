// `weir run` killed with SIGKILL (no chance to clean up) and resumed with --from-savepoint from the
// newest retained checkpoint, several times over, then run to its end: the committed output of
// the word count must be exactly what one failure-free run commits on the lmdb state backend,
// whose local stores die with the processes.
import { after, before, test } from 'node:test';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { sigkillResumeScenario } from '../fixtures/sigkill-resume-scenario.ts';

let root: string;
before(() => {
  root = makeTempDir('sigkill-lmdb');
});
after(() => removeDir(root));

test('lmdb state backend: SIGKILL and resume from the latest checkpoint, three times, then finish: exactly-once output', { timeout: 120_000 }, () => sigkillResumeScenario(root, 'lmdb'));
