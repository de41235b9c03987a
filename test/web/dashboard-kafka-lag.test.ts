// Consumer lag per Kafka partition on the job page, in a real browser (headless Chromium), for a
// KafkaSource over the librdkafka mock: while the sink holds the records back, a card lists each
// partition with the subtask reading it and its lag, the figures the REST API reports for the
// readers, and a total equal to the topic's records less those the reader emitted; once the sink lets everything through, every partition shows 0
// and the sink has every record.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BroadcastChannel } from 'node:worker_threads';
import type { Browser } from 'playwright-core';
import { createJobMaster, defineJob, type Sink, type SinkWriter } from '../../src/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer } from '../../src/rest/rest-server.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';
import { KafkaSource } from '../../src/connectors/kafka/index.ts';
import type { JobDetailsView } from '../../src/rest/rest-views.ts';
import { uniqueId } from '../fixtures/helpers.ts';
import { produceWords, startKafkaTest, stopKafkaTest, type KafkaTestEnv } from '../fixtures/kafka-topics.ts';
import { launchBrowser, numberIn, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';
import { join } from 'node:path';

const RECORDS = 3000;
const PARTITIONS = 3;

/** Takes one record, then nothing until the gate opens (a message on its channel); counts what it took, on the same channel. */
class GatedSink implements Sink<string> {
  readonly #name: string;
  constructor(name: string) {
    this.#name = name;
  }
  createWriter(): SinkWriter<string> {
    const channel = new BroadcastChannel(this.#name);
    let open = false;
    let written = 0;
    let release: (() => void) | undefined;
    const opened = new Promise<void>((resolve) => (release = resolve));
    channel.onmessage = (m) => {
      if ((m as { data: unknown }).data === 'open') {
        open = true;
        release?.();
      }
    };
    return {
      write: () => {
        written++;
        if (open) channel.postMessage({ written });
      },
      ready: () => (open || written === 0 ? undefined : opened),
      close: () => channel.close(),
    };
  }
}

let browser: Browser | undefined;
let env: KafkaTestEnv | undefined;
before(async () => {
  browser = await launchBrowser();
  if (browser) env = await startKafkaTest('weir-dashboard-lag');
});
after(async () => {
  await browser?.close();
  await stopKafkaTest(env ?? {});
});

test('consumer lag per partition: shown while the sink holds records back, as the readers report it, then 0 for every partition', { skip, timeout: 120_000 }, async () => {
  await env!.mock.createTopic('lagging', PARTITIONS);
  await produceWords(env!.producer, 'lagging', PARTITIONS, 0, RECORDS, 10);
  const gate = uniqueId('gate');
  const job = defineJob((e) => {
    e.setParallelism(1);
    e.fromSource(new KafkaSource({ connection: { bootstrapServers: env!.mock.bootstrap }, topics: ['lagging'], bufferSize: 64 }), { name: 'Source: lagging', uid: 'kafka' }).sinkTo(new GatedSink(gate), { name: 'Sink', uid: 'sink' });
  });
  const master = await createJobMaster({ job, log: silentLogger });
  const done = master.run();
  const rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  const { page, errors } = await openPage(browser!);
  const channel = new BroadcastChannel(gate);
  let written = 0;
  channel.onmessage = (m) => void (written = Math.max(written, ((m as { data: { written?: number } }).data.written ?? 0)));
  try {
    await withDiagnostics(page, errors, 'dashboard-kafka-lag', async () => {
      await master.whenRunning();
      await page.goto(`${rest.url}/#/jobs/${master.jobId}`);
      const card = page.locator('section.consumer-lag', { has: page.locator('h2', { hasText: 'Consumer lag of Source: lagging' }) });
      /** The page's figures and the REST API's, read back to back. */
      const look = async () => {
        const shown = await card.evaluate((el) => ({
          total: el.querySelector("[data-figure='total']")?.textContent ?? '',
          rows: [...el.querySelectorAll('tr[data-partition]')].map((tr) => ({ partition: tr.getAttribute('data-partition'), subtask: tr.children[1]?.textContent, lag: tr.querySelector("[data-figure='lag']")?.textContent ?? '' })),
        }));
        const view = (await (await fetch(`${rest.url}/jobs/${master.jobId}`)).json()) as JobDetailsView;
        const source = view.vertices.find((v) => v.name.startsWith('Source: lagging'))!.subtasks[0]!.source ?? {};
        return { shown, source };
      };
      // Held back: the reader stopped at the sink's gate, with records of every partition fetched and not emitted.
      const held = await until('a lag on every partition, the same on the page as in the REST API', async () => {
        const { shown, source } = await look();
        if (shown.rows.length !== PARTITIONS) return false;
        const rest = Object.fromEntries(Object.entries(source).filter(([k]) => k.startsWith('consumerLag.')).map(([k, v]) => [k.slice('consumerLag.'.length), v]));
        const page: Record<string, number> = Object.fromEntries(shown.rows.map((r) => [r.partition, numberIn(r.lag)]));
        const total = Object.values(page).reduce((a, b) => a + b, 0);
        // Every partition fetched at least once: the lag is what the topic holds less what the reader emitted.
        return total === RECORDS - (source.recordsEmitted ?? NaN) && JSON.stringify(page) === JSON.stringify(Object.fromEntries(Object.keys(page).map((p) => [p, rest[p]]))) && numberIn(shown.total) === total ? { shown, total } : false;
      }, 30_000);
      assert.deepEqual(held.shown.rows.map((r) => r.partition).sort(), ['lagging-0', 'lagging-1', 'lagging-2']);
      assert.ok(held.shown.rows.every((r) => r.subtask === '1/1'));
      assert.ok(held.total > 0 && held.total < RECORDS, `lag ${held.total} of ${RECORDS} records`);
      await page.screenshot({ path: join(OUT, 'dashboard-kafka-lag.png'), fullPage: true });
      channel.postMessage('open');
      await until('every record in the sink', async () => written === RECORDS, 60_000);
      await until('lag 0 on every partition', async () => {
        const { shown } = await look();
        return shown.rows.length === PARTITIONS && shown.rows.every((r) => numberIn(r.lag) === 0) && numberIn(shown.total) === 0;
      }, 30_000);
    });
  } finally {
    channel.close();
    await page.close();
    await master.cancel();
    await done;
    await rest.stop(SHUTDOWN, 0);
  }
});
