// `npm run soak`, outside the test suites (about 45 minutes on 2 shared cores: four tables of
// 1M-2M rows of 1 KB each): the title scenario at full size, for both dialects
// (test/fixtures/cdc-title-scenario.ts): a table
// that one SELECT * takes at least ten times the checkpoint timeout to read, changing the whole
// time, `weir run` SIGKILLed in the middle of the snapshot and resumed: no failed checkpoint, no
// restart, and the committed change stream replayed equals the final table row for row. Then the
// same with the sink throttled to a third of the speed the first run's snapshot reached, so that
// the sink pushes back on the source for the whole snapshot (CDC jobs default to an
// aligned-checkpoint timeout below the checkpoint timeout: a stuck aligned checkpoint goes
// unaligned in time).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startDialect, type CdcDialectFixture, type CdcDialectName } from '../fixtures/cdc-dialect-fixture.ts';
import { describeTitleRun, runTitleScenario, type TitleScenarioOptions } from '../fixtures/cdc-title-scenario.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const PARALLELISM = 2;

for (const name of ['postgres', 'mariadb'] satisfies CdcDialectName[]) {
  describe(`the title scenario at full size (${name})`, () => {
    let dialect: CdcDialectFixture;
    let root: string;
    let sourceRowsPerSecond = 0;
    before(async () => {
      root = makeTempDir(`title-long-${name}`);
      dialect = await startDialect(name);
    });
    after(async () => {
      await dialect?.stop();
      removeDir(root);
    });

    const options = (table: string, markerId: number, sinkRatePerSubtask?: number): TitleScenarioOptions => ({
      dialect,
      root: join(root, table),
      table,
      rows: 750_000,
      growBy: 250_000,
      maxRows: 4_500_000,
      noteChars: 1000,
      checkpointTimeoutMs: 3000,
      checkpointIntervalMs: 200,
      minSelectRatio: 10,
      chunkSize: 8000,
      parallelism: PARALLELISM,
      killAt: 0.4,
      snapshotTimeoutMs: 1_800_000,
      checkHeapMb: 12_000,
      markerId,
      ...(sinkRatePerSubtask ? { sinkRatePerSubtask } : {}),
    });

    test('SELECT * takes >= 10x the checkpoint timeout; SIGKILL mid-snapshot under changes, resume: 0 failed checkpoints, 0 restarts, the change stream equals the table', { timeout: 3_600_000 }, async (t) => {
      const o = options('big', 1);
      const r = await runTitleScenario(o);
      sourceRowsPerSecond = r.snapshotRowsPerSecond;
      t.diagnostic(describeTitleRun(name, o, r));
      await dialect.dropTable('big');
    });

    test('the same with the sink at a third of the source speed', { timeout: 3_600_000 }, async (t) => {
      assert.ok(sourceRowsPerSecond > 0, 'the unthrottled run measured the source speed');
      const o = options('slowed', 2, Math.max(1, Math.round(sourceRowsPerSecond / 3 / PARALLELISM)));
      const r = await runTitleScenario(o);
      t.diagnostic(describeTitleRun(name, o, r));
      t.diagnostic(`the source read ${Math.round(sourceRowsPerSecond)} rows/s unthrottled; the sink takes ${o.sinkRatePerSubtask! * PARALLELISM} records/s over ${PARALLELISM} subtasks`);
      await dialect.dropTable('slowed');
    });
  });
}
