// The lmdb state backend's figures on the faces: per keyed operator the bytes its local store
// takes on disk and the state accesses its cache answered or sent to the store, in the subtask
// reports, the REST vertex metrics (Flink's ids, as for RocksDB's) and /metrics under Flink's
// and weir's names, and added up per TaskManager (bytes in its state working directory, cache hit
// rate) in /metrics; a heap-backed operator reports none of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createJobMaster, defineJob } from '../../../src/index.ts';
import type { StateBackendType } from '../../../src/state/state-backend.ts';
import { silentLogger } from '../../../src/log/logger.ts';
import { startRestServer } from '../../../src/rest/rest-server.ts';
import { SHUTDOWN } from '../../../src/lifecycle/service.ts';
import { DiscardSink } from '../../fixtures/helpers.ts';
import { ScriptedSource, type ScriptItem } from '../../fixtures/scripted-source.ts';
import { SMALL_CACHE, stateBackendConfig } from '../../fixtures/state-backends.ts';

const KEYS = 2000;

async function runWith(backend: StateBackendType, check: (get: (path: string) => Promise<unknown>, vertexId: string, jobId: string, stateOf: () => Array<{ localBytes: number; cacheHits: number; cacheMisses: number } | undefined>) => Promise<void>): Promise<void> {
  // Each key twice: the second pass finds few of them in a cache of SMALL_CACHE entries.
  const script: ScriptItem<string>[] = [...Array.from({ length: KEYS }, (_, i) => ({ record: `k${i}`, timestamp: i })), ...Array.from({ length: KEYS }, (_, i) => ({ record: `k${i}`, timestamp: i }))];
  const job = defineJob((env) => {
    env
      .fromSource(new ScriptedSource(script, { stayOpen: true }), { name: 'Source: script', uid: 'src' })
      .map((k: string) => ({ k, n: 1 }))
      .keyBy((r) => r.k)
      .sum('n', { name: 'Sum', uid: 'sum', parallelism: 1 })
      .sinkTo(new DiscardSink(), { parallelism: 1 });
  });
  const master = await createJobMaster({ job, config: stateBackendConfig(backend), log: silentLogger });
  const done = master.run();
  const rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  try {
    const get = async (path: string) => {
      const res = await fetch(`${rest.url}${path}`);
      assert.equal(res.status, 200, path);
      return res.headers.get('content-type')?.includes('json') ? res.json() : res.text();
    };
    const sum = master.graph.vertices.find((v) => v.name.startsWith('Sum'))!;
    const stateOf = () => master.taskMetrics().flatMap((t) => t.operators ?? []).filter((o) => o.uid === 'sum').map((o) => o.state);
    await check(get, sum.id, master.jobId, stateOf);
  } finally {
    await master.cancel();
    await done;
    await rest.stop(SHUTDOWN, 0);
  }
}

test('lmdb: the local store size and the cache hits and misses reach the subtask reports, REST and /metrics', async () => {
  await runWith('lmdb', async (get, vertexId, jobId, stateOf) => {
    // The figures come with the reports (every 500 ms): wait for both passes over the keys.
    const accesses = () => stateOf().reduce((n, s) => n + (s ? s.cacheHits + s.cacheMisses : 0), 0);
    for (let i = 0; i < 200 && accesses() < 2 * KEYS; i++) await new Promise((r) => setTimeout(r, 50));
    const [figures] = stateOf();
    assert.ok(figures, 'the Sum subtask reports state figures');
    assert.equal(figures.cacheHits + figures.cacheMisses, 2 * KEYS, 'every record is one state access');
    // Every first access misses; of the second pass, only keys still among the last SMALL_CACHE hit.
    assert.ok(figures.cacheMisses >= 2 * KEYS - SMALL_CACHE, `misses: ${JSON.stringify(figures)}`);
    assert.ok(figures.localBytes > 0, 'the store takes room on disk');

    const metrics = (await get(`/jobs/${jobId}/vertices/${vertexId}/metrics?get=0.Sum.lmdb.total-store-size,0.Sum.lmdb.cache-hit,0.Sum.lmdb.cache-miss`)) as Array<{ id: string; value: string }>;
    const byId = new Map(metrics.map((m) => [m.id, Number(m.value)]));
    assert.ok(byId.get('0.Sum.lmdb.total-store-size')! > 0, JSON.stringify(metrics));
    assert.equal(byId.get('0.Sum.lmdb.cache-hit')! + byId.get('0.Sum.lmdb.cache-miss')!, 2 * KEYS, JSON.stringify(metrics));

    const text = (await get('/metrics')) as string;
    assert.match(text, /flink_taskmanager_job_task_operator_lmdb_total_store_size\{[^}]*operator_name="Sum"[^}]*\} [1-9]\d*/);
    assert.match(text, /flink_taskmanager_job_task_operator_lmdb_cache_miss\{[^}]*operator_name="Sum"[^}]*\} [1-9]\d*/);
    assert.match(text, /weir_operator_state_local_bytes\{[^}]*operator="sum"[^}]*\} [1-9]\d*/);
    assert.match(text, /weir_operator_state_cache_misses_total\{[^}]*operator="sum"[^}]*\} [1-9]\d*/);
    // Per TaskManager (the Sum subtask's; the others keep no state on local disk): its bytes on disk and cache hit rate.
    const sample = (re: RegExp) => Number(re.exec(text)?.[1]);
    const tmBytes = sample(/^flink_taskmanager_lmdb_total_store_size\{[^}]*tm_id="[^"]+"[^}]*\} (\d+)$/m);
    assert.equal(tmBytes, sample(/^weir_taskmanager_state_local_bytes\{taskmanager="[^"]+"\} (\d+)$/m));
    assert.equal(tmBytes, figures.localBytes, 'the TaskManager\'s bytes on disk are its one store\'s');
    const rate = sample(/^weir_taskmanager_state_cache_hit_ratio\{taskmanager="[^"]+"\} ([\d.e-]+)$/m);
    assert.equal(rate, figures.cacheHits / (figures.cacheHits + figures.cacheMisses), text.split('\n').filter((l) => l.includes('taskmanager_state')).join('\n'));
    assert.equal(sample(/^flink_taskmanager_lmdb_cache_hit_rate\{[^}]*\} ([\d.e-]+)$/m), rate);
  });
});

test('heap: no local store figures', async () => {
  await runWith('heap', async (get, _vertexId, _jobId, stateOf) => {
    for (let i = 0; i < 200 && stateOf().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(stateOf(), [undefined], 'the Sum subtask reports, without state figures');
    const text = (await get('/metrics')) as string;
    assert.doesNotMatch(text, /lmdb_total_store_size\{|weir_operator_state_local_bytes\{|weir_taskmanager_state_local_bytes\{/);
  });
});
