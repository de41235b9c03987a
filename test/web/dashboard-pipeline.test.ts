// The job page of a pipeline (`weir pipeline FILE`'s job) shows its source tables, in headless
// Chromium, against a real pipeline over a private MariaDB: the shop of the pipeline tests (shards
// orders_1 and orders_2 routed to shop.orders, customers to shop.clients) into files. The card and
// GET /jobs/:id/pipeline agree: per source table the rows its snapshot read, its sink table, the
// changes read after inserts and a delete, and after an ALTER TABLE its last schema change
// (add.column, `sent`: a files sink writes it as a line and reports nothing of it). Into
// PostgreSQL: dashboard-pipeline-postgres.long.test.ts. The screenshot goes to test-output/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';
import { cardRows, snapshotted, tableOf, withPipeline } from './dashboard-pipeline-job.ts';

describe('web dashboard: a pipeline', () => {
  let browser: Browser | undefined;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test("a pipeline's tables: snapshot rows, sink tables, changes, and the last schema change after an ALTER", { skip, timeout: 120_000 }, async () => {
    const { page, errors } = await openPage(browser!);
    try {
      await withPipeline({ interval: '1 s' }, async (r) => {
        // ---- the snapshot: every table read, each with its sink table ----
        const first = await snapshotted(r);
        assert.deepEqual(first.snapshot, { tables: 3, 'tables-done': 3, rows: 42, done: true });
        assert.deepEqual(
          first.tables.map((t) => [t.table, t['snapshot-rows'], t['sink-tables'].join(','), t['last-schema-change']]),
          [
            ['shop.customers', 2, 'shop.clients', null],
            ['shop.orders_1', 20, 'shop.orders', null],
            ['shop.orders_2', 20, 'shop.orders', null],
          ],
        );

        await withDiagnostics(page, errors, 'dashboard-pipeline', async () => {
          await page.goto(`${r.restUrl}/#/jobs/${r.master.jobId}`);
          const card = page.locator('section.pipeline-tables');
          await card.waitFor({ timeout: 10_000 });
          await until('the three tables on the card', async () => (await cardRows(page)).length === 3);
          assert.deepEqual(
            (await cardRows(page)).map((x) => [x.table, x.snapshotRows, x.sinks, x.kind, x.change]),
            [
              ['shop.customers', '2', 'shop.clients', null, '–'],
              ['shop.orders_1', '20', 'shop.orders', null, '–'],
              ['shop.orders_2', '20', 'shop.orders', null, '–'],
            ],
          );
          assert.match((await card.locator('.pipeline-summary').textContent()) ?? '', /^3 of 3 tables snapshotted · 42 snapshot rows$/);

          // ---- changes: three inserts into orders_1, a delete from orders_2 ----
          for (const id of [101, 102, 103]) await r.sql.query(`INSERT INTO shop.orders_1 VALUES (?, 'ok', 1.50, 2)`, [id]);
          await r.sql.query('DELETE FROM shop.orders_2 WHERE id = 1');
          await until('the changes counted on the card', async () => {
            const rows = await cardRows(page);
            return rows.find((x) => x.table === 'shop.orders_1')?.changes === '3' && rows.find((x) => x.table === 'shop.orders_2')?.changes === '1';
          });
          const counted = await r.view();
          assert.deepEqual([tableOf(counted, 'shop.orders_1')?.inserts, tableOf(counted, 'shop.orders_2')?.deletes, tableOf(counted, 'shop.customers')?.changes], [3, 1, 0]);
          // A rate once two refreshes apart saw the counts (a number per second, or – before that).
          for (const x of await cardRows(page)) assert.match(x.perSecond ?? '', /^(–|[\d,]+\/s)$/);

          // ---- an ALTER TABLE: orders_1's last schema change ----
          const altered = Date.now();
          await r.sql.query('ALTER TABLE shop.orders_1 ADD COLUMN note VARCHAR(20)');
          await until('the schema change on the card', async () => (await cardRows(page)).find((x) => x.table === 'shop.orders_1')?.kind === 'add.column', 30_000);
          const row = (await cardRows(page)).find((x) => x.table === 'shop.orders_1')!;
          assert.equal(row.state, 'sent');
          assert.match(row.change ?? '', /^add\.column at \d\d:\d\d:\d\d SENT$/);
          const v = await r.view();
          const change = tableOf(v, 'shop.orders_1')?.['last-schema-change'];
          assert.equal(change?.kind, 'add.column');
          assert.equal(change?.state, 'sent');
          // The binlog's time has whole seconds.
          assert.ok(change!.at >= Math.floor(altered / 1000) * 1000 - 1000 && change!.at <= Date.now(), `its time ${change?.at} is when the ALTER ran (${altered})`);
          assert.equal(tableOf(v, 'shop.orders_2')?.['last-schema-change'], null);
          // The operators' figures behind the view are in /metrics too.
          const metrics = await (await fetch(`${r.restUrl}/metrics`)).text();
          assert.match(metrics, /^weir_operator_pipeline_route\{[^}]*operator="pipeline-transform-route"[^}]*subject="shop\.orders_1>shop\.orders"[^}]*\} 1$/m);
          assert.match(metrics, new RegExp(`^weir_operator_pipeline_schema_change_add_column\\{[^}]*subject="shop\\.orders_1"[^}]*\\} ${change!.at}$`, 'm'));
          await page.screenshot({ path: join(OUT, 'dashboard-pipeline.png'), fullPage: true });
        });

        // Other jobs have no pipeline view.
        assert.equal((await fetch(`${r.restUrl}/jobs/00000000000000000000000000000000/pipeline`)).status, 404);
      });
    } finally {
      await page.close().catch(() => {});
    }
  });
});
