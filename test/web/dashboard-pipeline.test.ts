// The job page of a pipeline (`weir pipeline FILE`'s job) shows its source tables, in headless
// Chromium, against a real pipeline over a private MariaDB: the shop of the pipeline tests (shards
// orders_1 and orders_2 routed to shop.orders, customers to shop.clients) into files. The card and
// GET /jobs/:id/pipeline agree: per source table the rows its snapshot read, its sink table, the
// changes read after inserts and a delete, and after an ALTER TABLE its last schema change
// (add.column, sent: a files sink writes it as a line and reports nothing of it). The screenshot goes to test-output/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { createJobMaster, createLogger, type JobMaster, type JobResult } from '../../src/index.ts';
import { PIPELINE_JOB_MODULE, pipelineJobArgs } from '../../src/pipeline/pipeline-job.ts';
import type { PipelineView } from '../../src/rest/rest-views.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';
import { startMariaDb, type MariaDbServer } from '../fixtures/mariadb-server.ts';
import { connect } from '../fixtures/cdc-workload.ts';
import { createShop } from '../fixtures/pipeline-shop.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { launchBrowser, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';
import { startOnceStoppableRest } from './dashboard-job.ts';

describe('web dashboard: a pipeline', () => {
  let browser: Browser | undefined;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test("a pipeline's tables: snapshot rows, sink tables, changes, and the last schema change after an ALTER", { skip, timeout: 120_000 }, async () => {
    const dir = makeTempDir('dashboard-pipeline');
    let server: MariaDbServer | undefined;
    let sql: Awaited<ReturnType<typeof connect>> | undefined;
    let master: JobMaster | undefined;
    let result: Promise<JobResult> | undefined;
    let rest: Awaited<ReturnType<typeof startOnceStoppableRest>> | undefined;
    const { page, errors } = await openPage(browser!);
    try {
      server = await startMariaDb();
      sql = await connect(server, 'mysql');
      const { file } = await createShop(sql, server, dir, join(dir, 'out'));
      const log = createLogger({ level: 'error' });
      master = await createJobMaster({ job: PIPELINE_JOB_MODULE, args: pipelineJobArgs(file, readFileSync(file, 'utf8')), config: { 'execution.checkpointing.dir': join(dir, 'checkpoints') }, log });
      result = master.run();
      rest = await startOnceStoppableRest(master, undefined, log);
      const url = `${rest.url}/jobs/${master.jobId}/pipeline`;
      const view = async () => (await (await fetch(url)).json()) as PipelineView;
      const tableOf = (v: PipelineView, name: string) => v.tables.find((t) => t.table === name);

      // ---- the snapshot: every table read, each with its sink table ----
      const snapshotted = await until('the snapshot to be done', async () => {
        const v = await view();
        // The readers report their figures every 500 ms, the enumerator's are read at once.
        const rows = v.tables.reduce((n, t) => n + t['snapshot-rows'], 0);
        return v.snapshot?.done && v.tables.length === 3 && v.tables.every((t) => t['sink-tables'].length > 0) && rows === v.snapshot.rows ? v : null;
      }, 60_000);
      assert.deepEqual(snapshotted.snapshot, { tables: 3, 'tables-done': 3, rows: 42, done: true });
      assert.deepEqual(
        snapshotted.tables.map((t) => [t.table, t['snapshot-rows'], t['sink-tables'].join(','), t['last-schema-change']]),
        [
          ['shop.customers', 2, 'shop.clients', null],
          ['shop.orders_1', 20, 'shop.orders', null],
          ['shop.orders_2', 20, 'shop.orders', null],
        ],
      );

      await withDiagnostics(page, errors, 'dashboard-pipeline', async () => {
        await page.goto(`${rest!.url}/#/jobs/${master!.jobId}`);
        const card = page.locator('section.pipeline-tables');
        await card.waitFor({ timeout: 10_000 });
        const rows = () =>
          card.locator('tbody tr').evaluateAll((trs) =>
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
        await until('the three tables on the card', async () => (await rows()).length === 3);
        assert.deepEqual(
          (await rows()).map((r) => [r.table, r.snapshotRows, r.sinks, r.kind, r.change]),
          [
            ['shop.customers', '2', 'shop.clients', null, '–'],
            ['shop.orders_1', '20', 'shop.orders', null, '–'],
            ['shop.orders_2', '20', 'shop.orders', null, '–'],
          ],
        );
        assert.match((await card.locator('.pipeline-summary').textContent()) ?? '', /^3 of 3 tables snapshotted · 42 snapshot rows$/);

        // ---- changes: three inserts into orders_1, a delete from orders_2 ----
        for (const id of [101, 102, 103]) await sql!.query(`INSERT INTO shop.orders_1 VALUES (?, 'ok', 1.50, 2)`, [id]);
        await sql!.query('DELETE FROM shop.orders_2 WHERE id = 1');
        await until('the changes counted on the card', async () => {
          const r = await rows();
          return r.find((x) => x.table === 'shop.orders_1')?.changes === '3' && r.find((x) => x.table === 'shop.orders_2')?.changes === '1';
        });
        const counted = await view();
        assert.deepEqual([tableOf(counted, 'shop.orders_1')?.inserts, tableOf(counted, 'shop.orders_2')?.deletes, tableOf(counted, 'shop.customers')?.changes], [3, 1, 0]);
        // A rate once two refreshes apart saw the counts (a number per second, or – before that).
        for (const r of await rows()) assert.match(r.perSecond ?? '', /^(–|[\d,]+\/s)$/);

        // ---- an ALTER TABLE: orders_1's last schema change ----
        const altered = Date.now();
        await sql!.query('ALTER TABLE shop.orders_1 ADD COLUMN note VARCHAR(20)');
        await until('the schema change on the card', async () => (await rows()).find((r) => r.table === 'shop.orders_1')?.kind === 'add.column', 30_000);
        const row = (await rows()).find((r) => r.table === 'shop.orders_1')!;
        assert.equal(row.state, 'sent');
        assert.match(row.change ?? '', /^add\.column at \d\d:\d\d:\d\d SENT$/);
        const v = await view();
        const change = tableOf(v, 'shop.orders_1')?.['last-schema-change'];
        assert.equal(change?.kind, 'add.column');
        assert.equal(change?.state, 'sent');
        // The binlog's time has seconds.
        assert.ok(change!.at >= Math.floor(altered / 1000) * 1000 - 1000 && change!.at <= Date.now(), `its time ${change?.at} is when the ALTER ran (${altered})`);
        assert.equal(tableOf(v, 'shop.orders_2')?.['last-schema-change'], null);
        await page.screenshot({ path: join(OUT, 'dashboard-pipeline.png'), fullPage: true });
      });

      // Other jobs have no pipeline view.
      assert.equal((await fetch(`${rest.url}/jobs/00000000000000000000000000000000/pipeline`)).status, 404);
    } finally {
      await page.close().catch(() => {});
      await master?.cancel().catch(() => {});
      await result?.catch(() => {});
      await rest?.stop(SHUTDOWN, 0).catch(() => {});
      await sql?.end().catch(() => {});
      await server?.stop();
      removeDir(dir);
    }
  });
});
