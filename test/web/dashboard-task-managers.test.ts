// The dashboard's Task Managers page with keyed state on the lmdb backend, in Chromium: a cluster of
// a JobManager and two TaskManager processes (one slot each) runs a keyed sum over 50 keys; each
// TaskManager's local state (bytes its lmdb stores take in its working directory, cache hits and
// misses) is in GET /taskmanagers and /taskmanagers/:id, in the JobManager's /metrics per TaskManager
// (Flink's tm_id and weir's taskmanager label) with the same figures, and on the page in the row of
// that TaskManager as REST reports it. With incremental checkpoints, a delta checkpoint's
// checkpointed_size (what it wrote) and state_size (the full state) are in REST, in the row of the
// dashboard's checkpoint history and in `weir checkpoints`, the first less than the second.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';
import { spawnWeir, startWeirRun, weir, weirEnv } from '../fixtures/weir-process.ts';
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

/** GET on the REST API: its JSON, or its text (/metrics). */
async function getFrom(base: string, path: string): Promise<unknown> {
  const res = await fetch(`${base}${path}`);
  assert.equal(res.status, 200, path);
  return res.headers.get('content-type')?.includes('json') ? res.json() : res.text();
}

/** A size as the dashboard writes it (`512 B`, `1.5 MiB`, `20 KiB`), in bytes. */
function bytesIn(text: string): number {
  const m = /^([\d.]+) (B|KiB|MiB|GiB)$/.exec(text);
  assert.ok(m, `a size: ${JSON.stringify(text)}`);
  return Number(m[1]) * 1024 ** ['B', 'KiB', 'MiB', 'GiB'].indexOf(m[2]!);
}

test('lmdb job on two TaskManagers: each one\'s state on disk and cache hit rate in REST, /metrics and the Task Managers page; checkpoint sizes in REST, dashboard and CLI', { skip, timeout: 120_000 }, async () => {
  cluster = new TestCluster({ root, defines: { 'state.backend.type': 'lmdb', 'execution.checkpointing.incremental': 'true' } });
  await cluster.startJobManager();
  for (const id of TMS) await cluster.startTaskManager({ id, slots: 1 });
  const base = `http://${cluster.address}`;
  const get = (path: string) => getFrom(base, path);
  const run = spawnWeir(['run', KEYED_SUM, '-m', cluster.address, '-p', '2', '-d', '--checkpoint-dir', join(root, 'checkpoints'), '--', '--rate', '100'], cluster.env);
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

      // A delta checkpoint (a few of the 50 keys changed per 100 ms): it wrote less than its state.
      const jobId = ((await get('/jobs/overview')) as { jobs: Array<{ jid: string }> }).jobs[0]!.jid;
      type History = { id: number; status: string; is_savepoint: boolean; checkpointed_size: number; state_size: number };
      const delta = await until('a completed checkpoint that wrote less than its state', async () =>
        ((await get(`/jobs/${jobId}/checkpoints`)) as { history: History[] }).history.find((h) => h.status === 'COMPLETED' && !h.is_savepoint && h.checkpointed_size > 0 && h.checkpointed_size < h.state_size),
      );
      const [cli, rows] = await Promise.all([
        weir(['checkpoints', jobId, '-m', cluster!.address, '--limit', '100'], cluster!.env),
        (async () => {
          await page.goto(`${base}/#/jobs/${jobId}/checkpoints`);
          const row = page.locator(`tr.cp-row[data-checkpoint="${delta.id}"]`);
          await row.waitFor();
          return row.locator('td').allTextContents();
        })(),
      ]);
      // Dashboard: CHECKPOINTED SIZE, then FULL SIZE.
      for (const [shown, actual] of [[rows[5]!, delta.checkpointed_size], [rows[6]!, delta.state_size]] as const) assert.ok(Math.abs(bytesIn(shown) - actual) <= 0.05 * actual, `${shown} for ${actual}: ${JSON.stringify(rows)}`);
      // weir checkpoints: SIZE (state_size), then CHECKPOINTED (checkpointed_size).
      assert.equal(cli.code, 0, cli.stderr);
      const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`);
      const line = cli.stdout.split('\n').find((l) => l.startsWith(`${String(delta.id).padStart(4)}  COMPLETED`));
      assert.ok(line, `checkpoint ${delta.id} in:\n${cli.stdout}`);
      assert.match(cli.stdout, /SIZE {2}CHECKPOINTED/);
      assert.ok(line.includes(`  ${size(delta.state_size).padStart(9)}  ${size(delta.checkpointed_size).padStart(12)}  `), `${line}\nstate ${delta.state_size}, checkpointed ${delta.checkpointed_size}`);
    });
  } finally {
    await page.close();
  }
});

test("weir run on two worker-thread TaskManagers: each one's state on disk and cache hit rate in GET /taskmanagers, /metrics and the Task Managers page", { skip, timeout: 120_000 }, async () => {
  const run = startWeirRun([KEYED_SUM, '-p', '2', '--task-managers', '2', '-D', 'state.backend.type=lmdb', '--checkpoint-dir', join(root, 'run-checkpoints'), '--', '--rate', '100'], weirEnv(join(root, 'run')));
  try {
    const base = `http://${await run.jobManager()}`;
    const get = (path: string) => getFrom(base, path);
    type Listed = { id: string; resourceId: string; pid: number; slotsNumber: number; localState: LocalState | null };
    const list = async () => ((await get('/taskmanagers')) as { taskmanagers: Listed[] }).taskmanagers;
    // Threads of the run's own process, named as its Flink series name them (tm_id): <host>:<pid>-<index>.
    const tms = await until('both worker TaskManagers with state on disk and cache hits', async () => {
      const l = await list();
      return l.length === 2 && l.every((t) => (t.localState?.localBytes ?? 0) > 0 && (t.localState?.cacheHits ?? 0) > 0) && l;
    }, 60_000);
    assert.deepEqual(tms.map((t) => [t.pid, t.slotsNumber]), [[run.child.pid, 1], [run.child.pid, 1]], 'one slot each in the weir run process');
    assert.deepEqual(tms.map((t) => /-(\d+)$/.exec(t.resourceId)?.[1]), ['0', '1']);
    for (const tm of tms) {
      await until(`${tm.resourceId}'s figures alike in /taskmanagers/:id and /metrics`, async () => {
        const details = ((await get(`/taskmanagers/${tm.id}`)) as { localState: LocalState }).localState;
        const text = (await get('/metrics')) as string;
        const after = ((await get(`/taskmanagers/${tm.id}`)) as { localState: LocalState }).localState;
        if (JSON.stringify(details) !== JSON.stringify(after)) return false;
        const label = tm.resourceId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        assert.equal(Number(new RegExp(`^weir_taskmanager_state_local_bytes\\{taskmanager="${label}"\\} (\\d+)$`, 'm').exec(text)?.[1]), details.localBytes, text);
        assert.equal(Number(new RegExp(`^weir_taskmanager_state_cache_hits_total\\{taskmanager="${label}"\\} (\\d+)$`, 'm').exec(text)?.[1]), details.cacheHits);
        return true;
      });
    }
    const { page, errors } = await openPage(browser!);
    try {
      await withDiagnostics(page, errors, 'dashboard-task-managers-run', async () => {
        await page.goto(`${base}/#/taskmanagers`);
        for (const tm of tms) {
          const row = page.locator(`tr[data-key="${tm.id}"]`);
          await row.waitFor();
          await until(`${tm.resourceId}'s row as REST reports it`, async () => {
            const before = (await list()).find((t) => t.id === tm.id)!.localState!;
            const cells = await row.locator('td').allTextContents();
            const after = (await list()).find((t) => t.id === tm.id)!.localState!;
            assert.equal(cells[0], tm.resourceId);
            assert.equal(cells[2], '–', 'no data port: threads exchange records in memory');
            return [before, after].some((s) => Math.abs(bytesIn(cells[8]!) - s.localBytes) <= 0.05 * s.localBytes && cells[9] === `${(100 * s.cacheHitRate!).toFixed(1)}%`);
          });
        }
      });
    } finally {
      await page.close();
    }
  } finally {
    run.kill();
    await run.exited;
  }
});
