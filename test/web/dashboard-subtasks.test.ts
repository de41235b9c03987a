// The job graph and the subtasks table in a real browser (headless Chromium), for a bounded job
// that has finished and whose source's name is longer than its box: a finished subtask says
// "finished", not what it last reported doing; a long name is cut with an ellipsis inside its box,
// the whole name in the box's title.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { createJobMaster, defineJob } from '../../src/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer } from '../../src/rest/rest-server.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { ScriptedSource } from '../fixtures/scripted-source.ts';
import { launchBrowser, openPage, skip, until, withDiagnostics } from './browser.ts';

let browser: Browser | undefined;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const LONG = 'Source: the orders of every warehouse in the northern region, deduplicated';

test('a finished job: its subtasks say finished; a long vertex name stays inside its box, whole in its title', { skip, timeout: 60_000 }, async () => {
  const records = (n: number) => Array.from({ length: n }, (_, i) => ({ record: i, timestamp: i }));
  const job = defineJob((env) => {
    env.setParallelism(1);
    env.fromSource(new ScriptedSource<number>(records(500)), { name: LONG, uid: 'numbers' }).keyBy((i) => i).sinkTo(new DiscardSink<number>(), { name: 'Sink: discard', uid: 'sink' });
  });
  const master = await createJobMaster({ job, log: silentLogger });
  const done = master.run();
  const rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  const { page, errors } = await openPage(browser!);
  try {
    await withDiagnostics(page, errors, 'dashboard-subtasks', async () => {
      assert.equal((await done).status, 'FINISHED');
      await page.goto(`${rest.url}/#/jobs/${master.jobId}`);

      // The long name: cut to the box with an ellipsis; the title has it whole.
      const box = page.locator('svg.job-graph g.vertex', { has: page.locator('title', { hasText: LONG }) });
      await box.waitFor();
      const name = box.locator('.vertex-name');
      const shown = (await name.textContent()) ?? '';
      assert.ok(shown.endsWith('…') && LONG.startsWith(shown.slice(0, -1)), shown);
      // SVG elements, as far as this needs them (the tests compile without the DOM's types).
      type Box = { getBBox(): { x: number; width: number } };
      const fits = await name.evaluate((el) => {
        const text = (el as unknown as Box).getBBox();
        const rect = (el as unknown as { parentNode: { querySelector(s: string): Box } }).parentNode.querySelector('rect').getBBox();
        return { right: text.x + text.width, box: rect.x + rect.width };
      });
      assert.ok(fits.right <= fits.box, `the name ends at ${fits.right}, inside the box (${fits.box})`);

      // Every subtask finished: each says so.
      await page.locator('table.vertices tbody tr', { hasText: 'Sink: discard' }).click();
      const activity = page.locator('table.subtasks tbody tr td.activity');
      await until('the subtasks table', async () => (await activity.count()) === 1);
      assert.equal(((await activity.first().textContent()) ?? '').trim(), 'finished');
    });
  } finally {
    await page.close();
    await rest.stop(SHUTDOWN, 0);
  }
});
