// `weir stop --savepoint` of a MySQL CDC job while its table changes, resumed with `weir run -s`:
// the job ends FINISHED (the source closes its binlog reader as part of stopping, not as a
// failure that restarts it from an older checkpoint), and stopped and resumed it commits the same
// change lines as a run that never stopped. The whole matrix (p1/p2, with and without --drain,
// every source kind) is in test/cli/stop-with-savepoint-sources.long.test.ts.
import { after, before, test } from 'node:test';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { stopAndResumeCdc } from '../fixtures/cdc-stop-case.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weirEnv } from '../fixtures/weir-process.ts';

let server: MariaDbServer;
let root: string;
before(async () => {
  root = makeTempDir('cdc-stop');
  server = await startMariaDb();
});
after(async () => {
  await server?.stop();
  removeDir(root);
});

test('stop with savepoint at p2 while rows change, resume: FINISHED, then every change once', { timeout: 180_000 }, async (t) => {
  const r = await stopAndResumeCdc(server, root, weirEnv(root), { name: 'cdc p2', parallelism: 2, drain: false, seed: 11 });
  t.diagnostic(`${r.beforeStop} of ${r.total} change lines committed before the stop`);
});
