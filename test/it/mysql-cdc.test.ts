// The MySQL/MariaDB CDC source against a private MariaDB: snapshot in chunks while the table
// changes, then the binlog; the table materialized from the committed change stream must equal
// SELECT * of the table, with no change twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster, createLogger } from '../../src/index.ts';
import type { JobMaster } from '../../src/coordinator/job-master.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, createOrders, runWorkload, selectAll, type Sql } from '../fixtures/cdc-workload.ts';
import { changesAlreadyInSnapshot, duplicateChanges, materialize, parseChangeLines, type ChangeLine } from '../fixtures/cdc-records.ts';
import { JobEvents, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'cdc-to-files.ts');
const byId = (row: Record<string, unknown>) => String(row['id']);

/** Resolves when a committed line satisfies the predicate, checked after every completed checkpoint. */
function committedWhen(job: JobMaster, events: JobEvents, output: string, done: (lines: ChangeLine[]) => boolean): Promise<ChangeLine[]> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const lines = parseChangeLines(readCommittedLines(output));
      if (done(lines)) resolve(lines);
    };
    events.onCompleted = check;
    void job.result().then((r) => reject(new Error(`job ended (${r.status}) before the output was complete: ${r.error?.message}`)));
  });
}

describe('MySqlCdcSource on a private MariaDB', () => {
  let server: MariaDbServer;
  let sql: Sql;
  let root: string;
  before(async () => {
    server = await startMariaDb();
    sql = await connect(server);
    root = makeTempDir('cdc');
  });
  after(async () => {
    await sql?.end();
    await server?.stop();
    removeDir(root);
  });

  test('snapshot and binlog under concurrent changes and injected failures: the change stream materializes into the table', async () => {
    await createOrders(sql, 'orders', 20_000);
    await sql.query('CREATE TABLE markers (id INT PRIMARY KEY)');
    const output = join(root, 'failures', 'output');
    const events = new JobEvents();
    const job = await createJobMaster({
      job: JOB,
      args: ['--port', String(server.port), '--password', server.password, '--output', output, '--chunk-size', '700', '--checkpoint-interval', '150'],
      config: {
        'parallelism.default': 2,
        'execution.checkpointing.dir': join(root, 'failures', 'checkpoints'),
        'restart-strategy.type': 'fixed-delay',
        'restart-strategy.fixed-delay.attempts': 20,
        'restart-strategy.fixed-delay.delay': '50 ms',
      },
      faults: { failures: 3, seed: 7, minRecords: 1000, maxRecords: 6000 },
      listener: events.listener,
      log: createLogger({ level: 'error' }),
    });
    const running = job.run();
    await runWorkload(sql, 'orders', { seed: 1, operations: 1500, maxKey: 42_000 });
    await sql.query('INSERT INTO markers VALUES (1)');
    const lines = await committedWhen(job, events, output, (ls) => ls.some((l) => l.source.table === 'markers'));
    await job.cancel();
    await running;

    const orders = lines.filter((l) => l.source.table === 'orders');
    assert.deepEqual(duplicateChanges(orders, byId), [], 'no change twice');
    assert.deepEqual(changesAlreadyInSnapshot(orders, byId).slice(0, 5), [], 'no change that a snapshot chunk already held');
    const expected = await selectAll(server, 'orders');
    const actual = materialize(orders, 'orders', byId);
    assert.equal(actual.size, expected.size, 'row count');
    for (const [id, row] of expected) assert.deepEqual(actual.get(id), row, `row ${id}`);
    assert.ok(orders.some((l) => !l.source.snapshot), 'binlog changes were captured');
    assert.equal(job.restarts, 3, events.describe());
  });
});
