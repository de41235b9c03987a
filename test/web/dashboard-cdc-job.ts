// The CDC job the dashboard's CDC test watches (and `node --import tsx test/web/dashboard-cdc-job.ts`
// serves, to look at the page by hand): a private MariaDB with an `orders` table, read by the CDC
// source in chunks into a sink that takes a limited number of records per second, so that the
// initial snapshot takes a few seconds; then the source follows the binlog.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createJobMaster, createLogger, type JobMaster, type JobResult } from '../../src/index.ts';
import type { RestServer } from '../../src/rest/rest-server.ts';
import { startOnceStoppableRest } from './dashboard-job.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect, createOrders, type Sql } from '../fixtures/cdc-workload.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'cdc-slow-sink.ts');

export interface CdcDashboardJob {
  readonly db: MariaDbServer;
  /** A connection to the database `test`, to change the table while the job runs. */
  readonly sql: Sql;
  readonly master: JobMaster;
  readonly rest: RestServer;
  readonly result: Promise<JobResult>;
  /** Cancels the job if it still runs, closes the REST server, stops MariaDB, removes the temporary files. */
  stop(): Promise<void>;
}

/**
 * Starts MariaDB with `orders` of `rows` rows, then the job (source parallelism 2, chunks of
 * `chunkSize` rows, the sink taking `sinkRate` records per second, checkpoints every 500 ms) with
 * its REST API on a free loopback port.
 */
export async function startCdcDashboardJob(o: { rows: number; chunkSize: number; sinkRate: number; port?: number }): Promise<CdcDashboardJob> {
  const root = makeTempDir('dashboard-cdc');
  const db = await startMariaDb();
  let sql: Sql | undefined;
  let master: JobMaster | undefined;
  try {
    sql = await connect(db);
    await createOrders(sql, 'orders', o.rows);
    const log = createLogger({ level: 'error' });
    master = await createJobMaster({
      job: JOB,
      args: ['--port', String(db.port), '--password', db.password, '--tables', 'orders', '--chunk-size', String(o.chunkSize), '--sink-rate', String(o.sinkRate), '--checkpoint-interval', '500'],
      config: { 'parallelism.default': 2, 'execution.checkpointing.dir': join(root, 'checkpoints') },
      log,
    });
    const result = master.run();
    const rest = await startOnceStoppableRest(master, o.port, log);
    const m = master;
    const s = sql;
    return {
      db,
      sql: s,
      master: m,
      rest,
      result,
      stop: async () => {
        await m.cancel();
        await result.catch(() => {});
        await rest.stop(SHUTDOWN, 0).catch(() => {});
        await s.end().catch(() => {});
        await db.stop();
        removeDir(root);
      },
    };
  } catch (e) {
    await master?.cancel().catch(() => {});
    await sql?.end().catch(() => {});
    await db.stop();
    removeDir(root);
    throw e;
  }
}

// Run directly: serve the dashboard until Ctrl-C (a 300,000-row snapshot, then a change every second).
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const port = Number(process.env.PORT ?? 8081);
  const j = await startCdcDashboardJob({ rows: 300_000, chunkSize: 2000, sinkRate: 20_000, port });
  process.stderr.write(`dashboard: ${j.rest.url}/#/jobs/${j.master.jobId}   (Ctrl-C stops)\n`);
  let id = 1;
  const timer = setInterval(() => void j.sql.query(`INSERT INTO orders VALUES (?, 'live', 1.00, NULL, 'new', NOW(3))`, [id++ * 2 - 1]).catch(() => {}), 1000);
  process.once('SIGINT', () => {
    clearInterval(timer);
    void j.stop().then(() => process.exit(0));
  });
  await j.result;
  clearInterval(timer);
}
