// `weir stop --savepoint` of a PostgreSQL CDC job while its table changes, resumed with `weir run -s`:
// the job ends FINISHED, and stopped and resumed it commits the same change lines as a run that
// never stopped (both read the same slot from the same LSN), which materialize into the table.
import { after, before, test } from 'node:test';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { stopAndResumePgCdc } from '../fixtures/pg-cdc-stop-case.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weirEnv } from '../fixtures/weir-process.ts';

let server: PostgresServer;
let root: string;
before(async () => {
  root = makeTempDir('pg-cdc-stop');
  server = await startPostgres();
});
after(async () => {
  await server?.stop();
  removeDir(root);
});

test('PostgreSQL CDC: stop with savepoint at p2 while rows change, resume: FINISHED, then every change once', { timeout: 300_000 }, async (t) => {
  const r = await stopAndResumePgCdc(server, root, weirEnv(root), { name: 'pg cdc p2', parallelism: 2, drain: false, seed: 11 });
  t.diagnostic(`${r.beforeStop} of ${r.total} change lines committed before the stop`);
});
