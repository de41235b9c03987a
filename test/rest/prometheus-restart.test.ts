// GET /metrics after a restart, with every subtask in this thread: the task series are those of
// the new attempt only, the restart and the restore are counted, uptime counts from the restart
// (Flink's "running without interruption"), and in-thread channels carry no bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createJobMaster } from '../../src/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer } from '../../src/rest/rest-server.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'keyed-sum.ts');

/** name{labels} value lines, the labels as one string. */
const samples = (text: string, name: string) =>
  [...text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))].map((m) => ({ labels: m[1]!, value: Number(m[2]) }));

test('after a restart: only the new attempt\'s series, numRestarts, the restore\'s time, uptime since the restart', { timeout: 60_000 }, async () => {
  const root = makeTempDir('prometheus-restart');
  let restartedAt = 0;
  const master = await createJobMaster({
    job: JOB,
    config: { 'execution.checkpointing.dir': join(root, 'checkpoints'), 'restart-strategy.type': 'fixed-delay', 'restart-strategy.fixed-delay.delay': '10 ms' },
    faults: { failures: 1, seed: 3, minRecords: 3000, maxRecords: 3500, vertexNameContains: 'Sum' },
    listener: { onRestart: () => (restartedAt = Date.now()) },
    log: silentLogger,
  });
  const result = master.run();
  const rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  try {
    while (master.restarts === 0) await new Promise((r) => setTimeout(r, 20));
    await master.whenRunning();
    await master.checkpoints.trigger({ type: 'checkpoint' });
    // Two reports of every subtask of the new attempt.
    await new Promise((r) => setTimeout(r, 1200));
    const text = await (await fetch(`${rest.url}/metrics`)).text();

    const records = samples(text, 'flink_taskmanager_job_task_numRecordsIn');
    assert.equal(records.length, 4, 'one series per subtask of the running attempt');
    for (const r of records) {
      assert.match(r.labels, /task_attempt_num="1"/);
      assert.match(r.labels, /task_attempt_id="[0-9a-f]{32}_[0-9a-f]{32}_[01]_1"/);
    }
    for (const b of [...samples(text, 'flink_taskmanager_job_task_numBytesIn'), ...samples(text, 'flink_taskmanager_job_task_numBytesOut')]) {
      assert.equal(b.value, 0, 'buffers are handed over within a thread, not serialized');
    }
    const job = (name: string) => {
      const [s, ...more] = samples(text, `flink_jobmanager_job_${name}`);
      assert.ok(s && more.length === 0, name);
      return s.value;
    };
    assert.equal(job('numRestarts'), 1);
    assert.equal(samples(text, 'weir_job_restarts_total')[0]!.value, 1);
    const restored = master.checkpoints.stats.latestRestored;
    assert.equal(job('lastCheckpointRestoreTimestamp'), restored?.timestamp ?? -1, 'the restore, if a checkpoint had completed before the failure');
    const uptime = job('uptime');
    assert.ok(uptime > 0 && uptime <= Date.now() - restartedAt, `uptime ${uptime} ms counts from the restart ${Date.now() - restartedAt} ms ago`);
    assert.ok(samples(text, 'weir_job_uptime_seconds')[0]!.value * 1000 > uptime, "weir's uptime counts from the job's start");
  } finally {
    await master.cancel();
    await result;
    await rest.stop(SHUTDOWN, 0);
    removeDir(root);
  }
});
