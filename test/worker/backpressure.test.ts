// Backpressure: a sink far slower than its source holds the source back through the channels'
// credits, so the records in flight stay within what the channels can hold and memory stays flat.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { createJobMaster, type JobMaster } from '../../src/index.ts';
import backpressureJob from '../fixtures/jobs/backpressure.ts';

const BACKPRESSURE = fileURLToPath(new URL('../fixtures/jobs/backpressure.ts', import.meta.url));

const BUFFER_RECORDS = 128;
const CREDITS = 2;
/** A sender's backlog makes its channel unwritable at this many buffers (OutputChannel's maxBacklog). */
const MAX_BACKLOG = 2;
/** Records one DataGen poll may emit before the task sees that its output is not writable. */
const POLL_BATCH = 256;
/** Records per second the sink takes, per sink subtask: far below what the source can make. */
const SINK_RATE = 10_000;

interface Sample {
  readonly at: number;
  readonly emitted: number;
  readonly sunk: number;
  readonly rss: number;
}

/** Fresh counts from every TaskManager at once: records the sources emitted and the sinks took in. */
async function sample(master: JobMaster, started: number): Promise<Sample> {
  const { tasks } = await master.describeTasks();
  let emitted = 0;
  let sunk = 0;
  for (const t of tasks) {
    const vertex = master.graph.vertices.find((v) => v.id === t.vertexId)!;
    if (vertex.isSource) emitted += t.recordsIn;
    else sunk += t.recordsIn;
  }
  return { at: performance.now() - started, emitted, sunk, rss: process.memoryUsage().rss };
}

const MB = 1024 * 1024;

describe('backpressure', { timeout: 60_000 }, () => {
  for (const [taskManagers, parallelism] of [
    [0, 1],
    [2, 2],
  ] as const) {
    const where = taskManagers === 0 ? 'in this thread' : `on ${taskManagers} worker TaskManagers`;

    test(`a slow sink holds back an unbounded source (${where}, parallelism ${parallelism})`, async () => {
      const master = await createJobMaster({
        job: taskManagers > 0 ? BACKPRESSURE : backpressureJob,
        args: ['--sink-rate', String(SINK_RATE), '--parallelism', String(parallelism), '--payload', '200'],
        config: { 'taskmanager.network.buffer-records': BUFFER_RECORDS, 'taskmanager.network.credits-per-channel': CREDITS },
        taskManagers,
      });
      const run = master.run();
      const samples: Sample[] = [];
      const counts: Array<{ readIn: number; writtenOut: number }> = [];
      try {
        const started = performance.now();
        // Wait for records to reach the sink (worker threads take a moment to start).
        for (let s = await sample(master, started); s.sunk === 0; s = await sample(master, started)) {
          assert.ok(performance.now() - started < 15_000, 'records reach the sink');
          assert.ok(master.status === 'CREATED' || master.status === 'RUNNING', `status ${master.status}`);
          await sleep(50);
        }
        const from = performance.now();
        while (performance.now() - from < 3000) {
          await sleep(150);
          samples.push(await sample(master, started));
          counts.push(master.recordCounts());
        }
        assert.equal(master.status, 'RUNNING', 'the job is still running when sampling ends');
      } finally {
        const cancelled = await master.cancel();
        assert.equal(cancelled.status, 'CANCELED');
        assert.equal((await run).status, 'CANCELED');
      }

      // What the channels between the source and the sink can hold: each (all-to-all) channel has
      // the receiver's credits, the sender's backlog, a buffer being filled and one poll's overflow.
      const channels = parallelism * parallelism;
      const capacity = channels * (CREDITS + MAX_BACKLOG + 2) * BUFFER_RECORDS + parallelism * POLL_BATCH;
      const gaps = samples.map((s) => s.emitted - s.sunk);
      assert.ok(gaps.every((g) => g >= 0), `the sinks never take more than the sources emitted: ${gaps}`);
      assert.ok(Math.max(...gaps) <= capacity, `records in flight ${Math.max(...gaps)} stay within the channel capacity ${capacity} (gaps ${gaps})`);

      // The pipeline moves, at the sink's pace: the source is held to it, not running ahead.
      const first = samples[0]!;
      const last = samples.at(-1)!;
      const seconds = (last.at - first.at) / 1000;
      const sinkRate = (last.sunk - first.sunk) / seconds;
      const sourceRate = (last.emitted - first.emitted) / seconds;
      assert.ok(sinkRate > SINK_RATE * parallelism * 0.3, `the sink makes progress: ${Math.round(sinkRate)} records/s`);
      assert.ok(sinkRate < SINK_RATE * parallelism * 1.5, `the sink is as slow as it should be: ${Math.round(sinkRate)} records/s`);
      assert.ok(sourceRate < SINK_RATE * parallelism * 1.5, `the source is held to the sink's pace: ${Math.round(sourceRate)} records/s`);

      // The JobMaster's own figures (reported every 500 ms per TaskManager) tell the same story,
      // allowing for one reporting interval of skew between TaskManagers.
      const reported = counts.filter((c) => c.readIn > 0);
      assert.ok(reported.length > 0, 'TaskManagers report metrics');
      const skew = SINK_RATE * parallelism * 0.5;
      for (const c of reported) assert.ok(c.readIn - c.writtenOut <= capacity + skew, `recordCounts ${JSON.stringify(c)} within ${capacity} + ${skew}`);

      // Memory stays flat: late samples are not far above early ones.
      const early = Math.max(...samples.slice(0, 3).map((s) => s.rss));
      const late = Math.max(...samples.slice(-3).map((s) => s.rss));
      assert.ok(late - early < 64 * MB, `rss grew from ${Math.round(early / MB)} MB to ${Math.round(late / MB)} MB`);
    });
  }
});
