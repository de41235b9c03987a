// The dashboard's Watermarks card in a real browser (headless Chromium) against a running
// event-time job whose two source subtasks stand at different watermarks: the card shows each
// vertex's watermark, which subtask holds it back, and the late records the windows dropped; the
// subtasks table shows each subtask's watermark. A screenshot goes to test-output/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { createJobMaster, defineJob, TumblingEventTimeWindows, type Collector, type TimeWindow, type WindowContext } from '../../src/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer } from '../../src/rest/rest-server.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { ScriptedSource } from '../fixtures/scripted-source.ts';
import { launchBrowser, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

let browser: Browser | undefined;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const T = Date.UTC(2024, 0, 15, 12, 0, 0);

test('the Watermarks card shows which subtask holds a vertex back, and the late records dropped', { skip, timeout: 60_000 }, async () => {
  const source = ScriptedSource.perSubtask<string>(
    [
      [{ record: 'a', timestamp: T + 100 }, { watermark: T + 5000 }],
      [{ record: 'b', timestamp: T + 200 }, { watermark: T + 3000 }, { record: 'b', timestamp: T + 50 }],
    ],
    { stayOpen: true },
  );
  const job = defineJob((env) => {
    env
      .fromSource(source, { name: 'Source: script', uid: 'src', parallelism: 2 })
      .keyBy((s) => s)
      .window(TumblingEventTimeWindows.of(1000))
      .process({ process: (k: string, _c: WindowContext<TimeWindow>, es: readonly string[], out: Collector<string>) => out.collect(`${k}${es.length}`) }, { name: 'Windows', uid: 'windows', parallelism: 2 })
      .sinkTo(new DiscardSink(), { name: 'Sink', parallelism: 2 });
  });
  const master = await createJobMaster({ job, log: silentLogger });
  const done = master.run();
  const rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  const { page, errors } = await openPage(browser!);
  try {
    await withDiagnostics(page, errors, 'dashboard-watermarks', async () => {
      await master.whenRunning();
      await page.goto(`${rest.url}/#/jobs/${master.jobId}`);
      const rows = page.locator('.watermarks-card tbody tr');
      await until('the late record counted', async () => (await rows.count()) === 2 && /1$/.test((await rows.nth(1).locator('td').nth(4).textContent()) ?? ''));
      const cells = async (i: number) => (await rows.nth(i).locator('td').allTextContents()).map((c) => c.trim());
      const [sourceRow, windowRow] = [await cells(0), await cells(1)];
      assert.equal(sourceRow[0], 'Source: script');
      assert.match(sourceRow[1]!, /:03\.000$/, `the source vertex is at its lower subtask's watermark (T + 3 s): ${sourceRow[1]}`);
      assert.equal(sourceRow[3], 'subtask 2/2', 'subtask 2 holds the source vertex back');
      assert.match(windowRow[1]!, /:03\.000$/);
      assert.equal(windowRow[3], 'none (all at the same watermark)');
      assert.equal(windowRow[4], '1', 'b@50 came after the watermark passed its window');
      // The subtasks of the source: each its own watermark.
      await page.locator('table.vertices tbody tr', { hasText: 'Source: script' }).click();
      const subtaskWatermarks = page.locator('table.subtasks tbody tr td:nth-child(12)');
      await until('the subtasks table', async () => (await subtaskWatermarks.count()) === 2);
      const shown = await subtaskWatermarks.allTextContents();
      assert.match(shown[0]!, /:05\.000$/);
      assert.match(shown[1]!, /:03\.000$/);
      await page.screenshot({ path: join(OUT, 'dashboard-watermarks.png'), fullPage: true });
    });
  } finally {
    await page.close();
    await master.cancel();
    await done;
    await rest.stop(SHUTDOWN, 0);
  }
});
