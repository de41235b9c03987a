// A pipeline into PostgreSQL on the dashboard, in headless Chromium: an ALTER TABLE made right
// after a checkpoint shows as `held` (the sink applies it once the transaction before it has
// committed, at the next checkpoint's completion), then `applied`, and the target table has the
// column. The screenshot of the held change goes to test-output/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import pg from 'pg';
import { launchBrowser, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';
import { cardRows, snapshotted, tableOf, withPipeline } from './dashboard-pipeline-job.ts';

describe('web dashboard: a pipeline into PostgreSQL', () => {
  let browser: Browser | undefined;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test('into PostgreSQL: the schema change held until the transaction before it commits, then applied', { skip, timeout: 120_000 }, async () => {
    const { page, errors } = await openPage(browser!);
    try {
      // Checkpoints 4 s apart: a change made just after one completes is held for seconds (the page refreshes every second).
      await withPipeline({ postgres: true, interval: '4 s' }, async (r) => {
        await snapshotted(r);
        await withDiagnostics(page, errors, 'dashboard-pipeline-postgres', async () => {
          await page.goto(`${r.restUrl}/#/jobs/${r.master.jobId}`);
          await until('the three tables on the card', async () => (await cardRows(page)).length === 3);
          const stateOnCard = async () => (await cardRows(page)).find((x) => x.table === 'shop.orders_1')?.state ?? null;

          // A row, then the ALTER right after a checkpoint: the sink holds the change until the next
          // checkpoint has completed (its transaction, with the rows before the change, committed).
          await r.sql.query(`INSERT INTO shop.orders_1 VALUES (201, 'ok', 2.00, 1)`);
          await new Promise<void>((resolve) => {
            const off = r.master.checkpoints.stats.onCompleted(() => {
              off();
              resolve();
            });
          });
          await r.sql.query('ALTER TABLE shop.orders_1 ADD COLUMN note VARCHAR(20)');
          await until('the change held on the card', async () => (await stateOnCard()) === 'held', 10_000);
          assert.equal(tableOf(await r.view(), 'shop.orders_1')?.['last-schema-change']?.kind, 'add.column');
          await page.screenshot({ path: join(OUT, 'dashboard-pipeline-held.png'), fullPage: true });
          await until('the change applied on the card', async () => (await stateOnCard()) === 'applied', 30_000);
          const target = new pg.Client(r.postgres!.connectionOptions());
          await target.connect();
          try {
            const columns = await target.query<{ column_name: string }>("SELECT column_name FROM information_schema.columns WHERE table_schema = 'shop' AND table_name = 'orders' ORDER BY ordinal_position");
            assert.ok(columns.rows.some((c) => c.column_name === 'note'), `shop.orders has the column: ${columns.rows.map((c) => c.column_name).join(', ')}`);
          } finally {
            await target.end();
          }
          assert.equal(tableOf(await r.view(), 'shop.orders_1')?.['last-schema-change']?.state, 'applied');
        });
      });
    } finally {
      await page.close().catch(() => {});
    }
  });
});
