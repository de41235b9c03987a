// The dashboard's Job Manager page and header badge with and without high availability, in
// Chromium: a JobManager without HA says HA is off; with HA on a private 3-node NATS cluster the
// leader's page shows it leading with its epoch, and a standby's page (whose REST forwards to the
// leader) shows it is the standby and which leader answers for it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startNatsCluster, type NatsCluster } from '../fixtures/nats-cluster.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import type { WeirProcess } from '../fixtures/weir-process.ts';
import { launchBrowser, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';
import { msgOf, leading } from '../fixtures/process-log.ts';

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent({ timeout: 1000 })) ?? '').trim();

describe('dashboard: the Job Manager page and high availability', () => {
  let browser: Browser | undefined;
  let root: string;
  let nats: NatsCluster | undefined;
  const clusters: TestCluster[] = [];

  before(async () => {
    root = makeTempDir('dashboard-jm');
    browser = await launchBrowser();
  });

  after(async () => {
    for (const c of clusters) c.killAll();
    await browser?.close();
    await nats?.stop();
    removeDir(root);
  });

  test('without high availability: the page says HA is off, the header has no HA badge', { skip, timeout: 60_000 }, async () => {
    const cluster = new TestCluster({ root: join(root, 'plain') });
    clusters.push(cluster);
    await cluster.startJobManager();
    const { page, errors } = await openPage(browser!);
    try {
      await withDiagnostics(page, errors, 'dashboard-jm-no-ha', async () => {
        await page.goto(`http://${cluster.address}/#/jobmanager`);
        await page.locator('.ha-off').waitFor();
        assert.match(await text(page, '.ha-off'), /High availability is off \(high-availability\.type: none\)/);
        await page.locator('tr[data-key="high-availability.type"]').waitFor();
        // No limit (Number.MAX_SAFE_INTEGER) is written as the CLI writes it.
        assert.equal(await text(page, 'tr[data-key="jobstore.max-capacity"] td:nth-child(2)'), 'unlimited');
        await until('the header drawn', async () => /Running/.test(await text(page, '#overview')));
        assert.equal(await page.locator('.ha-badge').count(), 0);
        await page.screenshot({ path: join(OUT, 'dashboard-jm-no-ha.png') });
      });
    } finally {
      await page.close();
    }
  });

  test("with high availability: the leader's page and badge say leading with its epoch; a standby's say standby and name the leader", { skip, timeout: 90_000 }, async () => {
    nats = await startNatsCluster();
    const cluster = new TestCluster({
      root: join(root, 'ha'),
      defines: { 'high-availability.type': 'nats', 'high-availability.nats.servers': nats.servers, 'high-availability.cluster-id': 'dashboard-ha', 'high-availability.nats.lease-duration': '3 s' },
    });
    clusters.push(cluster);
    const leader = await cluster.startJobManager();
    const leaderAddress = cluster.address;
    await leader.waitFor('leadership', leading, 20_000);
    await cluster.startJobManager();
    const standbyAddress = cluster.address;
    const epoch = ((await (await fetch(`http://${leaderAddress}/overview`)).json()) as { 'ha-leader-epoch': number })['ha-leader-epoch'];
    assert.equal(typeof epoch, 'number');

    const { page, errors } = await openPage(browser!);
    try {
      await withDiagnostics(page, errors, 'dashboard-jm-ha', async () => {
        await page.goto(`http://${leaderAddress}/#/jobmanager`);
        await until('the leader shown leading', async () => (await text(page, '.ha-role')) === 'LEADING');
        assert.equal(await text(page, '.ha-leader'), `http://${leaderAddress}`);
        assert.equal(await text(page, '.ha-epoch'), String(epoch));
        assert.equal(await page.locator('.ha-forwarded').count(), 0, 'the leader answers itself');
        await until('the badge', async () => (await text(page, '.ha-badge')) === `HA leading · epoch ${epoch}`);
        await page.locator('tr[data-key="high-availability.status.leader-epoch"]').waitFor();
        await page.screenshot({ path: join(OUT, 'dashboard-jm-leader.png') });

        // The standby knows the leader once it has read it from NATS; until then it answers itself (standby, no leader).
        await page.goto(`http://${standbyAddress}/#/jobmanager`);
        await until('the standby shown as such', async () => (await text(page, '.ha-role')) === 'STANDBY' && (await page.locator('.ha-forwarded').count()) === 1);
        assert.match(await text(page, '.ha-forwarded'), new RegExp(`This JobManager \\(${standbyAddress}\\) is a standby: the leader at http://${leaderAddress} answers for it`));
        assert.equal(await text(page, '.ha-leader'), `http://${leaderAddress}`);
        assert.equal(await text(page, '.ha-epoch'), String(epoch));
        await until('the standby badge', async () => (await text(page, '.ha-badge')) === `HA standby · epoch ${epoch}`);
        await page.screenshot({ path: join(OUT, 'dashboard-jm-standby.png') });
      });
    } finally {
      await page.close();
    }
  });
});
