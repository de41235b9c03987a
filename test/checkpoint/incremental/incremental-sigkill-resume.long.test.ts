// `weir run` on the lmdb backend with incremental checkpoints, killed with SIGKILL three times and
// resumed each time with --from-savepoint from the newest retained checkpoint (its chain of base
// and deltas in the killed job's shared/), then run to its end: the committed output must be
// exactly what one failure-free run commits.
import { after, before, test } from 'node:test';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { sigkillResumeScenario } from '../../fixtures/sigkill-resume-scenario.ts';

let root: string;
before(() => {
  root = makeTempDir('sigkill-incremental');
});
after(() => removeDir(root));

test('lmdb with incremental checkpoints: SIGKILL and resume from the latest checkpoint, three times, then finish: exactly-once output', { timeout: 120_000 }, () =>
  sigkillResumeScenario(root, 'lmdb-incremental'));
