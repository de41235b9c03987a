// A savepoint (mid-snapshot) and a retained checkpoint (following the binlog) of a MySQL CDC job,
// written by an earlier weir (test/fixtures/snapshots/mysql-cdc-v1/, made by
// make-mysql-cdc-fixtures.ts), still restore: on a fresh private MariaDB whose binlog is rebuilt
// by replaying the fixture's statements (so the snapshot's watermarks and binlog positions name
// the same events), the restored job, at its parallelism and rescaled, finishes the snapshot and
// follows the binlog while the table changes, and the committed change stream (the fixture's
// output plus the restored run's) materializes into the table with no change twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { assertChangeStreamMatchesTable, committedMarker, connect } from '../fixtures/cdc-workload.ts';
import { startMariaDb } from '../fixtures/mariadb-server.ts';
import { binlogEnd, CDC_FIXTURE_JOB, CDC_FIXTURES, readCdcFixtureScenario } from '../fixtures/mysql-cdc-fixture.ts';
import { JobEvents, makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

const scenario = readCdcFixtureScenario();
/** Statements run while the restored job reads, after the ones the snapshot was taken after. */
const CHANGES_AFTER_RESTORE = 250;

for (const [kind, parallelism] of [['savepoint', 2], ['savepoint', 3], ['checkpoint', 1]] as const) {
  test(`a mysql-cdc-v1 ${kind} restores at parallelism ${parallelism}: the change stream is exact`, { timeout: 90_000 }, async (t) => {
    const fixture = scenario.snapshots[kind];
    const dir = makeTempDir(`cdc-legacy-${kind}`);
    const server = await startMariaDb();
    const sql = await connect(server);
    t.after(async () => {
      await sql.end();
      await server.stop();
      removeDir(dir);
    });
    for (const s of scenario.setup) await sql.query(s);
    for (const s of scenario.statements.slice(0, fixture.applied)) await sql.query(s);
    assert.deepEqual(
      await binlogEnd(sql),
      fixture.binlogEnd,
      "the replayed binlog does not end where the fixture's did: this MariaDB writes other events than the one that made it, so the fixture's positions name other events here",
    );

    const output = join(dir, 'out');
    cpSync(join(CDC_FIXTURES, `${kind}-output`), output, { recursive: true });
    const events = new JobEvents();
    const job = await createJobMaster({
      job: CDC_FIXTURE_JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', output, ...scenario.jobArgs],
      config: { 'parallelism.default': parallelism, 'execution.checkpointing.dir': join(dir, 'checkpoints'), 'restart-strategy.type': 'none' },
      restoreFrom: join(CDC_FIXTURES, kind),
      listener: events.listener,
      log: createLogger({ level: 'error', write: () => {} }),
    });
    const running = job.run();
    const later = scenario.statements.slice(fixture.applied, fixture.applied + CHANGES_AFTER_RESTORE);
    assert.equal(later.length, CHANGES_AFTER_RESTORE, 'the fixture holds the statements to run after the restore');
    for (const s of later) await sql.query(s);
    await sql.query('INSERT INTO markers VALUES (1)');
    const lines = await committedMarker(job, events, output, 1);
    await job.cancel();
    const result = await running;
    assert.equal(result.error, undefined);
    assert.deepEqual(events.restored.map((r) => r.isSavepoint), [kind === 'savepoint']);

    const orders = lines.filter((l) => l.source.table === 'orders');
    const before = orders.filter((l) => l.source.pos <= fixture.binlogEnd.pos);
    assert.ok(before.length > 0 && before.length < orders.length, `the fixture's output and the restored run's both hold changes of orders (${before.length} of ${orders.length})`);
    assert.ok(orders.some((l) => !l.source.snapshot && l.source.pos > fixture.binlogEnd.pos), 'changes made after the restore were read from the binlog');
    await assertChangeStreamMatchesTable(server, lines, 'orders');
  });
}
