// The web dashboard in a real browser (headless Chromium from Debian's packages, driven by
// playwright-core) against a real running job: the jobs list, the job graph with its vertices,
// checkpoints arriving live in the table and the plot, an expired checkpoint with its reason, a
// savepoint and a stop-with-savepoint triggered from the buttons, and a cancel. Screenshots of the
// job page and the checkpoints page go to test-output/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, numberIn, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';
import { JOB_NAME, startDashboardJob, type DashboardJob } from './dashboard-job.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

describe('web dashboard', () => {
  let browser: Browser | undefined;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test('shows a running job live: graph, checkpoints, an expired checkpoint, a savepoint and a stop from the buttons', { skip, timeout: 60_000 }, async () => {
    const job: DashboardJob = await startDashboardJob();
    const { page, errors } = await openPage(browser!);
    try {
      await withDiagnostics(page, errors, 'dashboard', async () => {
        await job.master.whenRunning();
        await page.goto(`${job.rest.url}/`);

        // ---- the jobs list ----
        const link = page.locator('a.job-link', { hasText: JOB_NAME });
        await link.waitFor();
        assert.equal(await page.locator('tr.job-row .badge').first().textContent(), 'RUNNING');
        await link.click();
        await until('the job page', async () => (await page.evaluate('location.hash')) === `#/jobs/${job.master.jobId}`);

        // ---- the job graph: one box per vertex, with name and parallelism, and arrows between them ----
        const vertices = page.locator('svg.job-graph g.vertex');
        await until('three vertex boxes', async () => (await vertices.count()) === 3);
        assert.deepEqual(await page.locator('svg.job-graph .vertex-name').allTextContents(), ['Source: events', 'Sum per key', 'Sink: holdable']);
        const lines = await vertices.allTextContents();
        assert.match(lines[0]!, /Parallelism 2/);
        assert.match(lines[2]!, /Parallelism 1/);
        assert.deepEqual(await page.locator('svg.job-graph .edge-label').allTextContents(), ['HASH', 'REBALANCE']);
        // Record counts grow as the page polls.
        const sinkIn = async () => numberIn(await page.locator('.facts div', { hasText: 'Records into sinks' }).locator('dd').textContent());
        const first = await until('records reaching the sink', async () => (await sinkIn()) > 0 && sinkIn());
        await until('the record counts to update', async () => (await sinkIn()) > first);
        await until('every vertex measured', async () => (await page.locator('svg.job-graph g.vertex.load-unknown').count()) === 0);
        const kind = async (name: string) => {
          const cls = (await page.locator('svg.job-graph g.vertex', { has: page.locator('.vertex-name', { hasText: name }) }).getAttribute('class')) ?? '';
          return /load-(\w+)/.exec(cls)?.[1];
        };

        // The sink hangs: it is the bottleneck (busy, red) and the operators before it back up
        // (grey), as Flink colours them; checkpoints expire meanwhile.
        job.sink.hold(8000);
        await until('the held sink is the busy box and the sum behind it is backpressured', async () => (await kind('Sink: holdable')) === 'busy' && (await kind('Sum per key')) === 'backpressured', 9000);
        assert.match((await page.locator('svg.job-graph g.vertex', { has: page.locator('.vertex-name', { hasText: 'Sum per key' }) }).textContent()) ?? '', /Backpressured [1-9]\d*%/);
        await page.screenshot({ path: join(OUT, 'dashboard-job.png'), fullPage: true });

        // ---- checkpoints, live ----
        await page.locator('a.tab-link[data-tab="checkpoints"]').click();
        const rows = page.locator('table.history tr.cp-row');
        await rows.first().waitFor();
        const newestId = async () => Number(await rows.first().getAttribute('data-checkpoint'));
        const completedMarks = page.locator('svg.duration-chart .series .mark.completed');
        const seenId = await newestId();
        const seenMarks = await completedMarks.count();
        await until('new checkpoints in the table', async () => (await newestId()) >= seenId + 2, 10_000);
        await until('new points in the plot', async () => (await completedMarks.count()) > seenMarks, 10_000);

        // ---- the expired checkpoint, with its reason (in the table, the failures list and the plot) ----
        const failedRow = rows.filter({ has: page.locator('td.reason', { hasText: 'expired after 600 ms' }) }).first();
        await failedRow.waitFor({ timeout: 15_000 });
        assert.equal(await failedRow.getAttribute('data-status'), 'FAILED');
        const failedId = Number(await failedRow.getAttribute('data-checkpoint'));
        const stats = job.master.checkpoints.stats.get(failedId);
        assert.ok(stats && stats.status === 'FAILED', `checkpoint ${failedId} is ${stats?.status} on the JobManager`);
        assert.equal(await failedRow.locator('td.reason').getAttribute('title'), stats.failureMessage);
        // The reason names the subtasks that held the checkpoint up (the sink, or the operators backed up behind it).
        assert.match(stats.failureMessage ?? '', /had not acknowledged — '(Sink: holdable|Sum per key)' subtask \d\/\d/);
        const listed = page.locator(`.failure-list li[data-checkpoint="${failedId}"] .reason`);
        await listed.waitFor();
        assert.equal(await listed.textContent(), stats.failureMessage);
        assert.ok((await page.locator('svg.duration-chart .series .mark.failed').count()) >= 1, 'no failed checkpoint in the plot');
        assert.ok(numberIn(await page.locator('.tile.failed .tile-value').textContent()) >= 1);

        // ---- a savepoint from the button ----
        await page.locator('button[data-action="savepoint"]').click();
        const dialog = page.locator('dialog.confirm[open]');
        await dialog.waitFor();
        // The target directory defaults to the job's execution.checkpointing.savepoint-dir.
        assert.equal(await dialog.locator('input[name="dir"]').inputValue(), job.savepointDir);
        await dialog.locator('button[data-role="confirm"]').click();
        const done = page.locator('.notice.done[data-kind="savepoint"]');
        await done.waitFor({ timeout: 15_000 });
        const location = (await done.locator('.location').textContent()) ?? '';
        assert.ok(location.startsWith(job.savepointDir), `savepoint at ${location}`);
        assert.ok(existsSync(join(location, '_metadata')), `no _metadata in ${location}`);
        const savepointRow = rows.filter({ has: page.locator('.sp-marker', { hasText: 'Savepoint' }) }).first();
        await savepointRow.waitFor({ timeout: 5000 });
        assert.equal(await savepointRow.getAttribute('data-status'), 'COMPLETED');
        assert.equal(await savepointRow.getAttribute('data-savepoint'), 'true');
        await until('the savepoint in the plot', async () => (await page.locator('svg.duration-chart .series .mark.savepoint').count()) >= 1);
        assert.match((await page.locator('table.latest tr[data-key="Latest savepoint"]').textContent()) ?? '', new RegExp(location.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));

        // ---- one checkpoint's figures per subtask ----
        const completedRow = page.locator('table.history tr.cp-row[data-status="COMPLETED"][data-savepoint="false"]').first();
        const cid = Number(await completedRow.getAttribute('data-checkpoint'));
        await completedRow.click();
        const detail = page.locator(`section.detail[data-checkpoint="${cid}"]`);
        await detail.waitFor();
        await until('per-subtask rows for 2 + 2 + 1 subtasks', async () => (await detail.locator('table.subtask-figures tbody tr').count()) === 5);
        const heads = await detail.locator('table.subtask-figures').first().locator('thead th').allTextContents();
        for (const h of ['Sync', 'Async', 'Alignment', 'Start delay']) assert.ok(heads.includes(h), `no ${h} column: ${heads.join(', ')}`);
        assert.equal(await page.evaluate('location.hash'), `#/jobs/${job.master.jobId}/checkpoints/${cid}`);
        // The configuration is shown.
        assert.match((await page.locator('section.config').textContent()) ?? '', /Tolerable failed checkpoints\s*1000/);
        await page.screenshot({ path: join(OUT, 'dashboard-checkpoints.png'), fullPage: true });

        // ---- exceptions: none ----
        await page.locator('a.tab-link[data-tab="exceptions"]').click();
        await page.locator('.empty-exceptions').waitFor();
        assert.equal(numberIn(await page.locator('p.restarts').textContent()), 0);

        // ---- cancel asks first: dismissing it leaves the job running ----
        await page.locator('button[data-action="cancel"]').click();
        await dialog.waitFor();
        await dialog.locator('button[data-role="dismiss"]').click();
        await dialog.waitFor({ state: 'detached' });
        await new Promise((r) => setTimeout(r, 300));
        assert.equal(job.master.status, 'RUNNING');

        // ---- stop with savepoint from the button: the job finishes ----
        await page.locator('button[data-action="stop"]').click();
        await dialog.waitFor();
        await dialog.locator('button[data-role="confirm"]').click();
        const stopped = page.locator('.notice.done[data-kind="stop"]');
        await stopped.waitFor({ timeout: 15_000 });
        const stopLocation = (await stopped.locator('.location').textContent()) ?? '';
        assert.ok(existsSync(join(stopLocation, '_metadata')), `no _metadata in ${stopLocation}`);
        assert.equal((await job.result).status, 'FINISHED');
        await until('the FINISHED badge', async () => (await page.locator('.job-title .badge').textContent()) === 'FINISHED');
        assert.ok(await page.locator('button[data-action="savepoint"]').isDisabled(), 'the buttons stay enabled after the job ended');
        // The REST API goes away with the job: the page says so and keeps what it showed.
        await job.rest.stop(SHUTDOWN, 0);
        await page.locator('.conn.offline').waitFor({ timeout: 5000 });
        assert.equal(await page.locator('.job-title h1').textContent(), JOB_NAME);
      });
    } finally {
      await page.close();
      await job.stop();
    }
  });

  test('where reads need the token, the page loads, asks for it, then sends it with every call (and a cancel works)', { skip, timeout: 30_000 }, async () => {
    const token = 'a-token-for-the-dashboard';
    const job = await startDashboardJob({ token, tokenRequiredForReads: true });
    const { page, errors } = await openPage(browser!);
    // The server answers 401 to the page's first reads; the browser logs those as failed loads.
    const calls: Array<{ method: string; path: string; authorization: string | undefined }> = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path !== '/' && !path.startsWith('/web/')) calls.push({ method: r.method(), path, authorization: r.headers().authorization });
    });
    try {
      await withDiagnostics(page, errors, 'dashboard-token', async () => {
        await job.master.whenRunning();
        await page.goto(`${job.rest.url}/`);
        const dialog = page.locator('dialog.confirm[open]');
        // Dismissed: the page says why it shows nothing, and does not ask again by itself.
        await dialog.waitFor({ timeout: 10_000 });
        assert.match((await dialog.textContent()) ?? '', /REST token needed.*rest\.token-required-for-reads/);
        await dialog.locator('button[data-role="dismiss"]').click();
        await until('the connection error', async () => /Error · .*needs Authorization: Bearer <rest\.token>/.test((await page.locator('#conn').textContent()) ?? ''));
        assert.equal(await page.locator('dialog.confirm[open]').count(), 0);
        // Reloaded: asked again; with the token the jobs list appears.
        await page.reload();
        await dialog.waitFor();
        await dialog.locator('input[name="token"]').fill(token);
        await dialog.locator('button[data-role="confirm"]').click();
        const link = page.locator('a.job-link', { hasText: JOB_NAME });
        await link.waitFor();
        await until('the connection live', async () => /^Live/.test((await page.locator('#conn').textContent()) ?? ''));
        const sent = calls.length;
        await until('more polls', async () => calls.length > sent + 2);
        assert.ok(calls.slice(sent).every((c) => c.authorization === `Bearer ${token}`), `every call after the token carries it: ${JSON.stringify(calls.slice(sent))}`);
        // A change needs no second dialog: the token goes with it.
        await link.click();
        const cancel = page.locator('button[data-action="cancel"]');
        await until('the cancel button enabled', async () => cancel.isEnabled());
        await cancel.click();
        await dialog.waitFor();
        await dialog.locator('button[data-role="confirm"]').click();
        assert.equal((await job.result).status, 'CANCELED');
        await until('the CANCELED badge', async () => (await page.locator('.job-title .badge').textContent()) === 'CANCELED');
        assert.deepEqual(
          calls.filter((c) => c.method === 'PATCH').map((c) => c.authorization),
          [`Bearer ${token}`],
          'one cancel call, with the token',
        );
      });
    } finally {
      await page.close();
      await job.stop();
    }
  });

  test('cancels a job from the button, after confirmation', { skip, timeout: 30_000 }, async () => {
    const job = await startDashboardJob();
    const { page, errors } = await openPage(browser!);
    try {
      await withDiagnostics(page, errors, 'dashboard-cancel', async () => {
        await job.master.whenRunning();
        await page.goto(`${job.rest.url}/#/jobs/${job.master.jobId}`);
        const cancel = page.locator('button[data-action="cancel"]');
        await until('the cancel button enabled', async () => cancel.isEnabled());
        await cancel.click();
        const dialog = page.locator('dialog.confirm[open]');
        await dialog.waitFor();
        assert.match((await dialog.textContent()) ?? '', /without a savepoint/);
        await dialog.locator('button[data-role="confirm"]').click();
        assert.equal((await job.result).status, 'CANCELED');
        await until('the CANCELED badge', async () => (await page.locator('.job-title .badge').textContent()) === 'CANCELED');
        await until('the top bar count', async () => numberIn(await page.locator('#overview .count', { hasText: 'Cancelled' }).textContent()) === 1);
      });
    } finally {
      await page.close();
      await job.stop();
    }
  });
});
