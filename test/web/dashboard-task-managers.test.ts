// The dashboard's Task Managers page with keyed state on the lmdb backend, in Chromium: a cluster of
// a JobManager and two TaskManager processes (one slot each) runs a keyed sum over 50 keys; each
// TaskManager's local state (bytes its lmdb stores take in its working directory, cache hits and
// misses) is in GET /taskmanagers and /taskmanagers/:id, in the JobManager's /metrics per TaskManager
// (Flink's tm_id and weir's taskmanager label) with the same figures, and on the page in the row of
// that TaskManager as REST reports it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';
import { launchBrowser, openPage, OUT, skip, until, withDiagnostics } from './browser.ts';

const KEYED_SUM = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'keyed-sum.ts');
const TMS = ['tm-a', 'tm-b'];

interface LocalState {
  readonly localBytes: number;
  readonly cacheHits: number;
  readonly cacheMisses: number;
  readonly cacheHitRate: number | null;
}

let browser: Browser | undefined;
let root: string;
let cluster: TestCluster | undefined;

before(async () => {
  root = makeTempDir('dashboard-tms');
  browser = await launchBrowser();
});

after(async () => {
  cluster?.killAll();
  await browser?.close();
  removeDir(root);
});

/** A size as the dashboard writes it (`512 B`, `1.5 MiB`, `20 KiB`), in bytes. */
function bytesIn(text: string): number {
  const m = /^([\d.]+) (B|KiB|MiB|GiB)$/.exec(text);
  assert.ok(m, `a size: ${JSON.stringify(text)}`);
  return Number(m[1]) * 1024 ** ['B', 'KiB', 'MiB', 'GiB'].indexOf(m[2]!);
}

test('lmdb job on two TaskManagers: each one\'s state on disk and cache hit rate in REST, /metrics and the Task Managers page', { skip, timeout: 120_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'state.backend.type': 'lmdb' } });
  await cluster.startJobManager();
  for (const id of TMS) await cluster.startTaskManager({ id, slots: 1 });
  const base = `http://${cluster.address}`;
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`);
    assert.equal(res.status, 200, path);
    return res.headers.get('content-type')?.includes('json') ? res.json() : res.text();
  };
  const run = spawnWeir(['run', KEYED_SUM, '-m', cluster.address, '-p', '2', '-d', '--checkpoint-dir', join(root, 'checkpoints'), '--', '--rate', '400'], cluster.env);
  assert.equal(await run.finished(60_000), 0, run.tail());

  // Both TaskManagers run a Sum subtask (one slot each): both report local state once the keys have come round twice.
  // Keyed by resource id (--id); `id` is the registration's (Flink's instance id), which /taskmanagers/:id and the page's rows go by.
  const taskManagers = async () => ((await get('/taskmanagers')) as { taskmanagers: Array<{ id: string; resourceId: string; localState: LocalState | null }> }).taskmanagers;
  const listed = async () => new Map((await taskManagers()).map((t) => [t.resourceId, t.localState]));
  await until('both TaskManagers with state on disk and cache hits', async () => {
    const l = await listed();
    return TMS.every((id) => (l.get(id)?.localBytes ?? 0) > 0 && (l.get(id)?.cacheHits ?? 0) > 0);
  }, 60_000);

  const instance = new Map((await taskManagers()).map((t) => [t.resourceId, t.id]));
  // /metrics and /taskmanagers/:id give the same figures (both from the subtasks' latest reports; retried until no report came between).
  const sample = (text: string, re: RegExp) => Number(re.exec(text)?.[1]);
  for (const id of TMS) {
    await until(`${id}'s figures alike in /taskmanagers/${id} and /metrics`, async () => {
      const details = ((await get(`/taskmanagers/${instance.get(id)}`)) as { localState: LocalState }).localState;
      const text = (await get('/metrics')) as string;
      const after = ((await get(`/taskmanagers/${instance.get(id)}`)) as { localState: LocalState }).localState;
      if (JSON.stringify(details) !== JSON.stringify(after)) return false;
      assert.equal(details.cacheHitRate, details.cacheHits / (details.cacheHits + details.cacheMisses));
      assert.equal(sample(text, new RegExp(`^weir_taskmanager_state_local_bytes\\{taskmanager="${id}"\\} (\\d+)$`, 'm')), details.localBytes, text);
      assert.equal(sample(text, new RegExp(`^weir_taskmanager_state_cache_hits_total\\{taskmanager="${id}"\\} (\\d+)$`, 'm')), details.cacheHits);
      assert.equal(sample(text, new RegExp(`^weir_taskmanager_state_cache_hit_ratio\\{taskmanager="${id}"\\} ([\\d.e-]+)$`, 'm')), details.cacheHitRate);
      // Flink's reporter writes '-' in a label value as '_'; its per-operator series carry the same tm_id.
      const tmId = id.replace('-', '_');
      assert.equal(sample(text, new RegExp(`^flink_taskmanager_lmdb_total_store_size\\{[^}]*tm_id="${tmId}"[^}]*\\} (\\d+)$`, 'm')), details.localBytes);
      assert.equal(sample(text, new RegExp(`^flink_taskmanager_lmdb_cache_hit_rate\\{[^}]*tm_id="${tmId}"[^}]*\\} ([\\d.e-]+)$`, 'm')), details.cacheHitRate);
      assert.equal(sample(text, new RegExp(`^flink_taskmanager_job_task_operator_lmdb_total_store_size\\{[^}]*tm_id="${tmId}"[^}]*operator_name="Sum"\\} (\\d+)$`, 'm')), details.localBytes, 'its one Sum subtask\'s store');
      return true;
    });
  }

  const { page, errors } = await openPage(browser!);
  try {
    await withDiagnostics(page, errors, 'dashboard-task-managers', async () => {
      await page.goto(`${base}/#/taskmanagers`);
      for (const id of TMS) {
        const row = page.locator(`tr[data-key="${instance.get(id)}"]`);
        await row.waitFor();
        // The page's figures are those REST gave its latest refresh: equal to REST's of just before or after it.
        await until(`${id}'s row as REST reports it`, async () => {
          const before = (await listed()).get(id)!;
          const cells = await row.locator('td').allTextContents();
          const title = await row.locator('td').nth(9).getAttribute('title');
          const after = (await listed()).get(id)!;
          return [before, after].some((s) => {
            const hits = `${s.cacheHits.toLocaleString('en-US')} hits, ${s.cacheMisses.toLocaleString('en-US')} misses`;
            const shown = bytesIn(cells[8]!);
            // bytes() rounds: to a tenth below 10 units, to a whole one above.
            return Math.abs(shown - s.localBytes) <= 0.05 * s.localBytes && cells[9] === `${(100 * s.cacheHitRate!).toFixed(1)}%` && title === hits;
          });
        });
      }
      await page.screenshot({ path: join(OUT, 'dashboard-task-managers.png') });
    });
  } finally {
    await page.close();
  }
});
