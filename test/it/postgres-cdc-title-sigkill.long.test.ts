// The title scenario in full on PostgreSQL (test/fixtures/cdc-title-scenario.ts): a table that one
// SELECT * takes at least twice the checkpoint timeout to read, changing the whole time (inserts,
// updates of values and of the primary key, deletes, transactions), `weir run` SIGKILLed in the
// middle of the snapshot and resumed: no failed checkpoint, no restart, and the committed change
// stream replayed equals the final table row for row: about two minutes (the table grows until one
// SELECT * takes 2.2x the 3 s timeout). In npm run test:long: at 100 s it took a ninth of npm
// test's fifteen minutes. Ten times the timeout, a throttled sink and MariaDB:
// cdc-title-scenario-10x.long.test.ts.
import { after, before, test } from 'node:test';
import { startDialect, type CdcDialectFixture } from '../fixtures/cdc-dialect-fixture.ts';
import { describeTitleRun, runTitleScenario, type TitleScenarioOptions } from '../fixtures/cdc-title-scenario.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

let dialect: CdcDialectFixture;
let root: string;
before(async () => {
  root = makeTempDir('pg-title-sigkill');
  dialect = await startDialect('postgres');
});
after(async () => {
  await dialect?.stop();
  removeDir(root);
});

test('PostgreSQL: SELECT * takes >= 2x the checkpoint timeout; SIGKILL mid-snapshot under changes, resume: 0 failed checkpoints, 0 restarts, the change stream equals the table', { timeout: 600_000 }, async (t) => {
  const o: TitleScenarioOptions = {
    dialect,
    root,
    table: 'big',
    rows: 200_000,
    growBy: 100_000,
    maxRows: 2_500_000,
    noteChars: 1000,
    checkpointTimeoutMs: 3000,
    checkpointIntervalMs: 200,
    minSelectRatio: 2,
    chunkSize: 4000,
    parallelism: 2,
    killAt: 0.4,
    snapshotTimeoutMs: 300_000,
    markerId: 1,
    // Up to 2.5M rows of 1 KB notes: the change stream is checked in a child process of its own,
    // long values as digests (in this process's default heap a table of 2M rows did not fit).
    checkHeapMb: 6000,
  };
  const r = await runTitleScenario(o);
  t.diagnostic(describeTitleRun('postgres', o, r));
});
