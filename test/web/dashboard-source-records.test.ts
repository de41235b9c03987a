// The job header's "Records read by sources" in a real browser (headless Chromium): the records
// the sources' readers emitted, once each, for a source chained to its sink (which writes nothing
// to a channel) and for a source feeding two edges (which writes each record twice).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { createJobMaster, defineJob, type JobDefinition } from '../../src/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer } from '../../src/rest/rest-server.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { ScriptedSource } from '../fixtures/scripted-source.ts';
import { launchBrowser, numberIn, openPage, skip, until, withDiagnostics } from './browser.ts';

let browser: Browser | undefined;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

const N = 300;
const script = () => new ScriptedSource<number>(Array.from({ length: N }, (_, i) => ({ record: i, timestamp: i })), { stayOpen: true });

/** The figures the header shows once the sinks have all the records. */
async function headerFigures(job: JobDefinition, sinkRecords: number): Promise<{ read: number; intoSinks: number }> {
  const master = await createJobMaster({ job, log: silentLogger });
  const done = master.run();
  const rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  const { page, errors } = await openPage(browser!);
  try {
    let figures = { read: 0, intoSinks: 0 };
    await withDiagnostics(page, errors, 'dashboard-source-records', async () => {
      await master.whenRunning();
      await page.goto(`${rest.url}/#/jobs/${master.jobId}`);
      const fact = async (term: string) => numberIn(await page.locator('.facts div', { hasText: term }).locator('dd').textContent());
      await until('every record in the sinks', async () => (await fact('Records into sinks')) === sinkRecords);
      // One more poll after the sinks have it all: the sources' figure was reported with it.
      await new Promise((r) => setTimeout(r, 1500));
      figures = { read: await fact('Records read by sources'), intoSinks: await fact('Records into sinks') };
    });
    return figures;
  } finally {
    await page.close();
    await master.cancel();
    await done;
    await rest.stop(SHUTDOWN, 0);
  }
}

test('a source chained to its sink: "Records read by sources" counts what it read, not 0', { skip, timeout: 60_000 }, async () => {
  const job = defineJob((env) => {
    env.setParallelism(1);
    env.fromSource(script(), { name: 'Source: numbers', uid: 'src' }).sinkTo(new DiscardSink<number>(), { name: 'Sink', uid: 'sink' });
  });
  assert.deepEqual(await headerFigures(job, N), { read: N, intoSinks: N });
});

test('a source feeding two edges: "Records read by sources" counts each record once, not twice', { skip, timeout: 60_000 }, async () => {
  const job = defineJob((env) => {
    env.setParallelism(1);
    const numbers = env.fromSource(script(), { name: 'Source: numbers', uid: 'src' });
    numbers.keyBy((i) => i % 2).map((i) => i, { name: 'Left', uid: 'left' }).sinkTo(new DiscardSink<number>(), { name: 'Sink: left', uid: 'sink-left' });
    numbers.keyBy((i) => i % 3).map((i) => i, { name: 'Right', uid: 'right' }).sinkTo(new DiscardSink<number>(), { name: 'Sink: right', uid: 'sink-right' });
  });
  assert.deepEqual(await headerFigures(job, 2 * N), { read: N, intoSinks: 2 * N });
});
