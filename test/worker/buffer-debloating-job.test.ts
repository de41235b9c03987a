// Buffer debloating in a running job on two worker TaskManagers: under a slow sink, each sink
// subtask's channels are sized to what it consumes in the target time, far below what they hold
// without debloating, and the figure reaches the TaskManager's report (REST, /metrics, dashboard).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createJobMaster } from '../../src/index.ts';

const BACKPRESSURE = fileURLToPath(new URL('../fixtures/jobs/backpressure.ts', import.meta.url));
const SEGMENTS = 8;
const SEGMENT_SIZE = 32 * 1024;
const CREDITS = 16;
const BUFFER_RECORDS = 512;

test('a slow sink on 2 worker TaskManagers: its channels are debloated to its consumption over the target', { timeout: 60_000 }, async () => {
  const master = await createJobMaster({
    job: BACKPRESSURE,
    // 2,000 records/s per sink subtask of ~220 bytes, half of them from the other TaskManager.
    args: ['--sink-rate', '2000', '--parallelism', '2', '--payload', '200'],
    config: {
      'taskmanager.network.memory.buffer-debloat.enabled': true,
      'taskmanager.network.memory.buffer-debloat.target': '100 ms',
      'taskmanager.network.memory.buffer-debloat.period': '50 ms',
      'taskmanager.network.memory.buffer-debloat.samples': 1,
      'taskmanager.network.memory.buffers-per-channel': SEGMENTS,
      'taskmanager.memory.segment-size': SEGMENT_SIZE,
      'taskmanager.network.credits-per-channel': CREDITS,
      'taskmanager.network.buffer-records': BUFFER_RECORDS,
    },
    taskManagers: 2,
  });
  const run = master.run();
  try {
    // The figures come with the TaskManagers' reports; look until both sink subtasks have had a few periods.
    let figures: Array<{ bytes?: number; records?: number } | undefined> = [];
    for (let i = 0; i < 100; i++) {
      const { tasks } = await master.describeTasks();
      figures = tasks.filter((t) => !master.graph.vertices.find((v) => v.id === t.vertexId)!.isSource).map((t) => t.debloated);
      if (figures.length === 2 && figures.every((f) => f?.bytes !== undefined && f.bytes < 4096 * 2 && f.records !== undefined && f.records < 1000)) break;
      await sleep(100);
    }
    assert.equal(figures.length, 2);
    for (const f of figures) {
      // ~1,000 records/s x ~220 B x 0.1 s = ~22 KB per channel, then averaged: far under the 8 x 32 KiB a ring holds.
      assert.ok(f?.bytes !== undefined && f.bytes > 0 && f.bytes < (SEGMENTS * SEGMENT_SIZE) / 4, `bytes per channel between TaskManagers: ${JSON.stringify(f)}`);
      // ~1,000 records/s x 0.1 s per channel within the TaskManager, against 16 x 512 without.
      assert.ok(f.records !== undefined && f.records > 0 && f.records < (CREDITS * BUFFER_RECORDS) / 8, `records per channel within the TaskManager: ${JSON.stringify(f)}`);
    }
  } finally {
    await master.cancel();
    await run;
  }
});
