// The pipelines the dashboard's pipeline tests watch: the shop of the pipeline tests on a private
// MariaDB (test/fixtures/pipeline-shop.ts), into files or a private PostgreSQL, run in this process
// with its REST API on a free loopback port; and how the test reads the pipeline card.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import pg from 'pg';
import { createJobMaster, createLogger, type JobMaster } from '../../src/index.ts';
import { PIPELINE_JOB_MODULE, pipelineJobArgs } from '../../src/pipeline/pipeline-job.ts';
import type { PipelineView } from '../../src/rest/rest-views.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';
import { startMariaDb } from '../fixtures/mariadb-server.ts';
import { startPostgres, type PostgresServer } from '../fixtures/postgres-server.ts';
import { connect } from '../fixtures/cdc-workload.ts';
import { createShop } from '../fixtures/pipeline-shop.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { until } from './browser.ts';
import { startOnceStoppableRest } from './dashboard-job.ts';
import { serverLines } from '../fixtures/pipeline-yaml.ts';

type Sql = Awaited<ReturnType<typeof connect>>;

export interface Running {
  readonly sql: Sql;
  readonly master: JobMaster;
  readonly restUrl: string;
  readonly postgres?: PostgresServer;
  view(): Promise<PipelineView>;
}

/** The shop on a private MariaDB and its pipeline, into files or (with `postgres`) into a private PostgreSQL, with checkpoints every `interval`. */
export async function withPipeline(o: { postgres?: boolean; interval: string }, body: (r: Running) => Promise<void>): Promise<void> {
  const dir = makeTempDir('dashboard-pipeline');
  const server = await startMariaDb();
  const postgres = o.postgres ? await startPostgres() : undefined;
  const sql = await connect(server, 'mysql');
  const cleanup: Array<() => Promise<unknown>> = [];
  try {
    const { file } = await createShop(sql, server, dir, join(dir, 'out'));
    let text = readFileSync(file, 'utf8').replace('execution.checkpointing.interval: 1 s', `execution.checkpointing.interval: ${o.interval}`);
    if (postgres) {
      const target = new pg.Client(postgres.connectionOptions());
      await target.connect();
      await target.query('CREATE SCHEMA shop');
      await target.end();
      text = text.replace(/sink:\n {2}type: files\n {2}path: .*\n/, `sink:\n  type: postgres\n${serverLines('postgres', postgres)}\n`);
      assert.match(text, /type: postgres/);
    }
    writeFileSync(file, text);
    const log = createLogger({ level: 'error' });
    const master = await createJobMaster({ job: PIPELINE_JOB_MODULE, args: pipelineJobArgs(file, text), config: { 'execution.checkpointing.dir': join(dir, 'checkpoints') }, log });
    const result = master.run();
    cleanup.push(async () => {
      await master.cancel().catch(() => {});
      await result.catch(() => {});
    });
    const rest = await startOnceStoppableRest(master, undefined, log);
    cleanup.push(() => rest.stop(SHUTDOWN, 0).catch(() => {}));
    const url = `${rest.url}/jobs/${master.jobId}/pipeline`;
    await body({ sql, master, restUrl: rest.url, ...(postgres ? { postgres } : {}), view: async () => (await (await fetch(url)).json()) as PipelineView });
  } finally {
    for (const c of cleanup.reverse()) await c();
    await sql.end().catch(() => {});
    await postgres?.stop();
    await server.stop();
    removeDir(dir);
  }
}

export const tableOf = (v: PipelineView, name: string) => v.tables.find((t) => t.table === name);

/** The snapshot done, and every table's figures in (the readers report every 500 ms, the enumerator's are read at once). */
export function snapshotted(r: Running): Promise<PipelineView> {
  return until(
    'the snapshot to be done',
    async () => {
      const v = await r.view();
      const rows = v.tables.reduce((n, t) => n + t['snapshot-rows'], 0);
      return v.snapshot?.done && v.tables.length === 3 && v.tables.every((t) => t['sink-tables'].length > 0) && rows === v.snapshot.rows ? v : null;
    },
    60_000,
  );
}

/** The pipeline card's rows as shown. */
export function cardRows(page: Page) {
  return page.locator('section.pipeline-tables tbody tr').evaluateAll((trs) =>
    // No named functions in here: the test's transpiler would wrap them in a helper the page lacks.
    trs.map((tr) => {
      const change = tr.querySelector('[data-figure="last-schema-change"]');
      return {
        table: tr.getAttribute('data-table'),
        snapshotRows: tr.querySelector('[data-figure="snapshot-rows"]')?.textContent,
        changes: tr.querySelector('[data-figure="changes"]')?.textContent,
        perSecond: tr.querySelector('[data-figure="changes-per-second"]')?.textContent,
        sinks: tr.querySelector('[data-figure="sink-tables"]')?.textContent,
        kind: change?.getAttribute('data-kind') ?? null,
        state: change?.getAttribute('data-state') ?? null,
        change: change?.textContent,
      };
    }),
  );
}

