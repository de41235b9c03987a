// Event time on the faces: GET /jobs/:id/vertices/:vid/watermarks (Flink's shape: each subtask's
// currentInputWatermark as a long string), the subtask and operator metrics, and /metrics under
// Flink's names (currentInputWatermark, numLateRecordsDropped, watermarkLag) and weir's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createJobMaster, defineJob, TumblingEventTimeWindows, type Collector, type TimeWindow, type WindowContext } from '../../src/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer } from '../../src/rest/rest-server.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { ScriptedSource, type ScriptItem } from '../fixtures/scripted-source.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const T = 1_700_000_000_000;

test('the watermarks route, the vertex metrics and /metrics show each subtask watermark and the late records dropped', async () => {
  const script: ScriptItem<string>[] = [
    { record: 'a', timestamp: T + 5 },
    { watermark: T + 2000 },
    { record: 'a', timestamp: T + 10 }, // too late: dropped
  ];
  const job = defineJob((env) => {
    env
      .fromSource(new ScriptedSource(script, { stayOpen: true }), { name: 'Source: script', uid: 'src' })
      .keyBy((s) => s)
      .window(TumblingEventTimeWindows.of(1000))
      .process({ process: (k: string, _c: WindowContext<TimeWindow>, es: readonly string[], out: Collector<string>) => out.collect(`${k}${es.length}`) }, { name: 'Windows', uid: 'windows', parallelism: 2 })
      .sinkTo(new DiscardSink(), { parallelism: 2 });
  });
  const master = await createJobMaster({ job, log: silentLogger });
  const done = master.run();
  const rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  try {
    const [source, windows] = master.graph.vertices;
    const get = async (path: string) => {
      const res = await fetch(`${rest.url}${path}`);
      assert.equal(res.status, 200, path);
      return res.headers.get('content-type')?.includes('json') ? res.json() : res.text();
    };
    // The figures come with the TaskManager's reports (every 500 ms): wait for the dropped record.
    const dropped = () => master.taskMetrics().flatMap((t) => t.operators ?? []).reduce((n, o) => n + (o.uid === 'windows' ? o.numLateRecordsDropped : 0), 0);
    for (let i = 0; i < 100 && dropped() < 1; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(dropped(), 1);

    assert.deepEqual(await get(`/jobs/${master.jobId}/vertices/${windows!.id}/watermarks`), [
      { id: '0.currentInputWatermark', value: String(T + 2000) },
      { id: '1.currentInputWatermark', value: String(T + 2000) },
    ]);
    assert.deepEqual(await get(`/v1/jobs/${master.jobId}/vertices/${source!.id}/watermarks`), [{ id: '0.currentInputWatermark', value: String(T + 2000) }], "a source's is its own");
    const metrics = (await get(`/jobs/${master.jobId}/vertices/${windows!.id}/metrics?get=0.Windows.numLateRecordsDropped,1.Windows.numLateRecordsDropped,0.currentInputWatermark`)) as Array<{ id: string; value: string }>;
    const byId = new Map(metrics.map((m) => [m.id, m.value]));
    const lateOf = [byId.get('0.Windows.numLateRecordsDropped'), byId.get('1.Windows.numLateRecordsDropped')].map(Number);
    assert.equal(lateOf[0]! + lateOf[1]!, 1, `numLateRecordsDropped of the subtask that owns key a: ${JSON.stringify(metrics)}`);
    assert.equal(byId.get('0.currentInputWatermark'), String(T + 2000));

    const text = (await get('/metrics')) as string;
    assert.match(text, new RegExp(`flink_taskmanager_job_task_currentInputWatermark\\{[^}]*task_name="Windows____Sink"[^}]*\\} ${T + 2000}`));
    assert.match(text, /flink_taskmanager_job_task_operator_numLateRecordsDropped\{[^}]*operator_name="Windows"[^}]*\} 1/);
    assert.match(text, /flink_taskmanager_job_task_operator_watermarkLag\{[^}]*operator_name="Source:_script"[^}]*\} \d+/);
    assert.match(text, /weir_task_event_time_lag_seconds\{[^}]*vertex="Source: script"[^}]*\} [\d.]+/);
    assert.match(text, /weir_operator_late_records_dropped_total\{[^}]*operator="windows"[^}]*\} 1/);
  } finally {
    await master.cancel();
    await done;
    await rest.stop(SHUTDOWN, 0);
  }
});
