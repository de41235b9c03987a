// The job page shows a CDC source's snapshot progress, live, in a real browser (headless Chromium)
// against a real CDC job over a private MariaDB: a progress bar of chunks finished that fills while
// the snapshot runs (with rows read, rows/s and the time left), then "snapshot done" with the
// table's row count and what each subtask reads from the binlog. A source with figures of its own
// shows them as `name: value`. The screenshot of the bar partway goes to test-output/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { createJobMaster, createLogger } from '../../src/index.ts';
import { startRestServer } from '../../src/rest/rest-server.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { launchBrowser, numberIn, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';
import { startCdcDashboardJob } from './dashboard-cdc-job.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

/** 150 chunks; the sink takes 12,000 rows/s, so the snapshot lasts about 6 to 9 s (the page polls every second). */
const ROWS = 150_000;
const CHUNK = 1000;
const SINK_RATE = 12_000;

describe('web dashboard: source progress', () => {
  let browser: Browser | undefined;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test('a CDC snapshot: a progress bar that fills live, then "snapshot done" and the binlog figures per subtask', { skip, timeout: 90_000 }, async () => {
    const job = await startCdcDashboardJob({ rows: ROWS, chunkSize: CHUNK, sinkRate: SINK_RATE });
    const { page, errors } = await openPage(browser!);
    try {
      await withDiagnostics(page, errors, 'dashboard-cdc', async () => {
        await job.master.whenRunning();
        await page.goto(`${job.rest.url}/#/jobs/${job.master.jobId}`);

        // ---- while the snapshot runs: a bar titled by the vertex, with its figures in words ----
        const card = page.locator('section.source-progress', { has: page.locator('h2', { hasText: 'Source: orders' }) });
        const bar = card.locator('progress.snapshot-bar');
        await bar.waitFor({ timeout: 10_000 });
        assert.equal(await card.getAttribute('data-phase'), 'snapshot');
        assert.equal(await bar.getAttribute('aria-label'), 'Snapshot of Source: orders: chunks finished');
        // One look at the card (in one evaluation, so no refresh falls between its parts).
        const state = () =>
          card.evaluate((el) => {
            const p = el.querySelector('progress.snapshot-bar');
            return {
              phase: el.getAttribute('data-phase'),
              value: Number(p?.getAttribute('value')),
              max: Number(p?.getAttribute('max')),
              valueText: p?.getAttribute('aria-valuetext') ?? null,
              percent: el.querySelector('.progress-percent')?.textContent ?? null,
              text: el.querySelector('.progress-text')?.textContent ?? null,
            };
          });
        const first = await state();
        // The splitter's step comes from the server's row estimate (Flink CDC's rule), so the rows of
        // 150 chunks may be cut into a chunk or two more; the page shows the job's own total throughout.
        const chunks = first.max;
        assert.ok(chunks >= ROWS / CHUNK && chunks <= ROWS / CHUNK + 3, `the total number of chunks: ${JSON.stringify(first)}`);
        assert.match(first.text ?? '', new RegExp(`^\\d[\\d,]* of ${chunks} chunks · .*[\\d,]+ rows read · [\\d,]+ rows/s · `), `the figures: ${first.text}`);

        // The bar fills as the page polls (without a reload); a screenshot while it is partway.
        const values = [first.value];
        const texts = new Set<string>([first.text ?? '']);
        const wrong: string[] = [];
        let screenshot = false;
        await until(
          'the snapshot to finish',
          async () => {
            const s = await state();
            if (s.phase !== 'snapshot') return s.phase === 'done';
            values.push(s.value);
            texts.add(s.text ?? '');
            const pct = Math.floor((s.value / s.max) * 100);
            if (s.percent !== `${pct}%` || s.valueText !== `${s.value} of ${s.max} chunks (${pct}%)`) wrong.push(JSON.stringify(s));
            if (!screenshot && s.value >= 0.2 * s.max && s.value <= 0.8 * s.max && s.text && / s left/.test(s.text)) {
              await page.screenshot({ path: join(OUT, 'dashboard-cdc-progress.png'), fullPage: true });
              screenshot = true;
            }
            return false;
          },
          60_000,
        );
        assert.deepEqual(wrong, [], 'the percentage and the accessible value agree with the bar');
        const distinct = [...new Set(values)];
        assert.deepEqual(distinct, [...distinct].sort((a, b) => a - b), `the bar never goes back: ${values.join(', ')}`);
        assert.ok(distinct.length >= 3, `the bar moved at least twice while the snapshot ran: ${values.join(', ')}`);
        assert.ok(distinct.some((v) => v > 0 && v < chunks), `the bar was seen partway: ${values.join(', ')}`);
        assert.ok(screenshot, `no screenshot of the bar partway with a time left: ${[...texts].join(' | ')}`);
        assert.ok([...texts].some((t) => /· ~\d+ s left( · |$)/.test(t)), `the estimated time left: ${[...texts].join(' | ')}`);

        // ---- done: the totals, then the binlog ----
        const done = card.locator('.snapshot-done');
        await done.waitFor();
        assert.match((await done.textContent()) ?? '', new RegExp(`snapshot done: ${chunks} chunks, ${ROWS.toLocaleString('en-US')} rows`));
        assert.equal(await bar.count(), 0, 'the bar is gone once the snapshot is done');
        const figures = Object.values(job.master.sourceCoordinatorMetrics())[0] ?? {};
        assert.equal(figures['snapshot_rows_read'], ROWS);
        assert.equal(figures['snapshot_done'], 1);

        // Changes after the snapshot: the subtask that follows the binlog counts them, with its lag.
        const table = card.locator('table.source-subtasks');
        assert.deepEqual(await table.locator('thead th').allTextContents(), ['Subtask', 'Status', 'Snapshot rows', 'Changes read', 'Binlog events', 'Lag']);
        await until('every snapshot row emitted by the readers', async () => {
          const rows = await table.locator('td[data-figure="snapshot_rows_emitted"]').allTextContents();
          return rows.length === 2 && rows.reduce((n, t) => n + numberIn(t), 0) === ROWS;
        });
        await job.sql.query(`INSERT INTO orders VALUES (1, 'live', 1.00, NULL, 'new', NOW(3)), (3, 'live', 2.00, NULL, 'new', NOW(3)), (5, 'live', 3.00, NULL, 'new', NOW(3))`);
        await job.sql.query(`UPDATE orders SET amount = amount + 1 WHERE id IN (2, 4)`);
        await job.sql.query(`DELETE FROM orders WHERE id = 6`);
        await until(
          '6 changes read from the binlog, on the page',
          async () => {
            const changes = await table.locator('td[data-figure="binlog_changes"]').allTextContents();
            return changes.reduce((n, t) => n + numberIn(t), 0) === 6 && /^Binlog: 6 changes read, lag \d+\.\d s$/.test((await card.locator('.binlog-summary').textContent()) ?? '');
          },
          20_000,
        );
        for (const lag of await table.locator('td[data-figure="binlog_lag_seconds"]').allTextContents()) assert.match(lag, /^\d+\.\d s$/);
        // Per table: the snapshot's rows and the changes by kind (3 inserts, 2 updates, 1 delete).
        const orders = card.locator('table.source-tables tr[data-table="test.orders"]');
        await until('the Tables view with the changes of test.orders', async () => {
          const cells = await Promise.all(['snapshot_rows', 'inserts', 'updates', 'deletes', 'schema_changes'].map(async (f) => numberIn((await orders.locator(`td[data-figure="${f}"]`).textContent()) ?? '')));
          return cells.join(',') === `${ROWS},3,2,1,0`;
        });

        // The checkpoints hold the sources' state (their binlog positions, in operator state): not 0 B.
        const size = await until('a completed checkpoint', async () => {
          const view = (await (await fetch(`${job.rest.url}/jobs/${job.master.jobId}/checkpoints`)).json()) as { latest: { completed: { state_size: number } | null } };
          return view.latest.completed && { bytes: view.latest.completed.state_size };
        });
        assert.ok(size.bytes > 0, `the latest checkpoint's size: ${size.bytes} B`);
        await page.screenshot({ path: join(OUT, 'dashboard-cdc-done.png'), fullPage: true });
        assert.equal(job.master.status, 'RUNNING');
        assert.equal(job.master.restarts, 0);
      });
    } finally {
      await page.close();
      await job.stop();
    }
  });

  test('a source with figures of its own: shown as name: value', { skip, timeout: 30_000 }, async () => {
    const root = makeTempDir('dashboard-figures');
    const log = createLogger({ level: 'error' });
    // 20 ranges of 500 numbers, read at 2,000 numbers per second: about 5 s.
    const master = await createJobMaster({
      job: join(import.meta.dirname, '..', 'fixtures', 'jobs', 'wordcount-enumerated.ts'),
      args: ['--output', join(root, 'out'), '--total', '10000', '--range', '500', '--rate', '2000', '--checkpoint-interval', '200'],
      config: { 'execution.checkpointing.dir': join(root, 'checkpoints') },
      log,
    });
    const result = master.run();
    const server = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log });
    const { page, errors } = await openPage(browser!);
    try {
      await withDiagnostics(page, errors, 'dashboard-figures', async () => {
        await master.whenRunning();
        await page.goto(`${server.url}/#/jobs/${master.jobId}`);
        const card = page.locator('section.source-progress', { has: page.locator('h2', { hasText: 'Source: ranges' }) });
        await card.waitFor({ timeout: 10_000 });
        assert.equal(await card.getAttribute('data-phase'), 'other');
        assert.equal(await card.locator('progress').count(), 0, 'no snapshot bar for figures of unknown meaning');
        assert.equal(await card.locator('[data-figure="ranges_total"]').textContent(), 'ranges_total: 20');
        await until('ranges_done to grow', async () => numberIn(await card.locator('[data-figure="ranges_done"]').textContent()) >= 2);
        assert.match((await card.locator('[data-figure="ranges_done"]').textContent()) ?? '', /^ranges_done: \d+$/);
      });
    } finally {
      await page.close();
      await master.cancel();
      await result.catch(() => {});
      await server.stop(SHUTDOWN, 0);
      removeDir(root);
    }
  });
});
