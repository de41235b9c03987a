// The dashboard's Exceptions tab in a real browser (headless Chromium), for a job whose map throws:
// as Flink's, it shows the newest exception's whole stack trace at once, and the trace names the
// user's file and line (test/fixtures/jobs/failing.ts, where the map throws).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { createJobMaster } from '../../src/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer } from '../../src/rest/rest-server.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';
import failing from '../fixtures/jobs/failing.ts';
import { launchBrowser, openPage, skip, withDiagnostics } from './browser.ts';

let browser: Browser | undefined;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

test("the Exceptions tab shows the newest exception's whole stack, naming the user's file and line", { skip, timeout: 60_000 }, async () => {
  const master = await createJobMaster({ job: failing, args: ['--fail-at', '7', '--n', '50', '--parallelism', '1'], config: { 'restart-strategy.type': 'none' }, log: silentLogger });
  const rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  const { page, errors } = await openPage(browser!);
  try {
    assert.equal((await master.run()).status, 'FAILED');
    await withDiagnostics(page, errors, 'dashboard-exceptions', async () => {
      await page.goto(`${rest.url}/#/jobs/${master.jobId}/exceptions`);
      const trace = page.locator('.exception pre.stacktrace').first();
      await trace.waitFor({ state: 'visible', timeout: 10_000 });
      const text = (await trace.textContent()) ?? '';
      assert.match(text, /^OperatorFailure: operator 'Explode' \(uid exploder\) failed in subtask 1\/1 of 'Explode -> Sink: discard': RangeError: bad record 7\nCaused by: RangeError: bad record 7\n\s+at /, text);
      assert.equal(text.split('Caused by: RangeError: bad record 7').length, 2, `the cause once: ${text}`);
      assert.match(text, /test\/fixtures\/jobs\/failing\.ts:13:\d+/, `the user's file and line: ${text}`);
    });
  } finally {
    await page.close();
    await rest.stop(SHUTDOWN, 0);
  }
});
