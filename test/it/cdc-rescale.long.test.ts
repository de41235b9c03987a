// A CDC job rescaled in the middle of its snapshot, for each dialect (PostgreSQL and MariaDB
// through one fixture): stopped with a savepoint at parallelism 2 while the table changes, resumed
// at 3; the chunks the savepoint holds as unfinished and the log are spread over three readers,
// and the committed change stream materializes into the table with no change twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import { hasMarker, startDialect, type CdcDialectFixture, type CdcDialectName } from '../fixtures/cdc-dialect-fixture.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const ROWS = 30_000;
const CHUNK = 500;

/** Resolves once a completed checkpoint has committed the marker row `id`. */
function committedMarker(dialect: CdcDialectFixture, job: JobMaster, events: JobEvents, output: string, id: number): Promise<void> {
  return new Promise((resolve, reject) => {
    events.onCompleted = () => {
      if (hasMarker(dialect.committed(output), id)) resolve();
    };
    void job.result().then((r) => reject(new Error(`job ended (${r.status}) before marker ${id} was committed: ${r.error?.message}`)));
  });
}

for (const name of ['postgres', 'mariadb'] satisfies CdcDialectName[]) {
  describe(`rescaling a CDC job mid-snapshot (${name})`, () => {
    let dialect: CdcDialectFixture;
    let root: string;
    before(async () => {
      root = makeTempDir(`cdc-rescale-${name}`);
      dialect = await startDialect(name);
    });
    after(async () => {
      await dialect?.stop();
      removeDir(root);
    });

    test('stop with a savepoint mid-snapshot at parallelism 2, resume at 3 while the table changes: the change stream is exact', { timeout: 180_000 }, async (t) => {
      await dialect.createTables('rescaled', ROWS, 0);
      const output = join(root, 'output');
      const args = dialect.jobArgs('rescaled', output, { chunkSize: CHUNK, checkpointIntervalMs: 100 });
      const config = (p: number) => ({ 'parallelism.default': p, 'execution.checkpointing.dir': join(root, 'checkpoints'), 'restart-strategy.type': 'none' });
      let writing = true;
      const workload = dialect.runWorkload('rescaled', { seed: 77, maxKey: ROWS * 2 + 1000, until: () => !writing });

      const eventsA = new JobEvents();
      const first = await createJobMaster({ job: dialect.job, args, config: config(2), listener: eventsA.listener, log: createLogger({ level: 'error', write: () => {} }) });
      const runningA = first.run();
      eventsA.watch(first);
      await eventsA.waitFor('15 finished chunks', () => (Object.values(first.sourceCoordinatorMetrics())[0]?.['snapshot_chunks_finished'] ?? 0) >= 15, 120_000);
      const savepoint = await first.stopWithSavepoint(join(root, 'savepoints'));
      await runningA;
      const state = savepoint.metadata.coordinators?.['cdc'] as { phase: string; finished: unknown[] };
      assert.equal(state.phase, 'snapshot', 'the savepoint was taken during the snapshot');

      const eventsB = new JobEvents();
      const second = await createJobMaster({ job: dialect.job, args, config: config(3), restoreFrom: savepoint.directory, listener: eventsB.listener, log: createLogger({ level: 'error', write: () => {} }) });
      const runningB = second.run();
      eventsB.watch(second);
      await eventsB.waitFor('the snapshot to finish', () => Object.values(second.sourceCoordinatorMetrics())[0]?.['snapshot_done'] === 1, 120_000);
      writing = false;
      const statements = await workload;
      await dialect.insertMarker(10);
      await committedMarker(dialect, second, eventsB, output, 10);
      await second.cancel();
      await runningB;
      assert.deepEqual(eventsB.restored.map((r) => r.isSavepoint), [true]);
      assert.equal(second.restarts, 0);
      const rows = await dialect.assertMatchesTable(output, 'rescaled');
      t.diagnostic(`${name}: savepoint after ${state.finished.length} finished chunks at p2, resumed at p3, ${statements} statements during the runs, ${rows} rows equal`);
    });
  });
}
