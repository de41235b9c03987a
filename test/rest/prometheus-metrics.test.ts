// GET /metrics against a job on two worker TaskManagers: the series under Flink's Prometheus
// reporter names and labels, their values against the REST API's figures, the checkpoint duration
// histogram, the Node process's figures, and weir's own names beside Flink's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createJobMaster, type JobMaster, type JobResult } from '../../src/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer, type RestServer } from '../../src/rest/rest-server.ts';
import type { CheckpointsOverviewView, JobDetailsView } from '../../src/rest/rest-views.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const JOB = join(import.meta.dirname, '..', 'fixtures', 'jobs', 'keyed-sum.ts');
const TASK_LABELS = ['host', 'job_id', 'job_name', 'subtask_index', 'task_attempt_id', 'task_attempt_num', 'task_id', 'task_name', 'tm_id'];
const JOB_LABELS = ['host', 'job_id', 'job_name'];
/** Flink's reporter replaces these characters in label values. */
const flinkValue = (s: string) => s.replace(/[^a-zA-Z0-9:_]/g, '_');

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}
interface Scrape {
  readonly types: Map<string, string>;
  readonly samples: Sample[];
  /** The samples of one name, optionally narrowed by labels. */
  all(name: string, labels?: Record<string, string>): Sample[];
  /** The value of the one sample of a name (with those labels). */
  one(name: string, labels?: Record<string, string>): number;
}

/** Enough of the Prometheus text format (0.0.4) for this test: TYPE lines and samples. */
function parse(text: string): Scrape {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) types.set(type[1]!, type[2]!);
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  const all = (name: string, labels: Record<string, string> = {}) => samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    types,
    samples,
    all,
    one: (name, labels) => {
      const found = all(name, labels);
      assert.equal(found.length, 1, `one sample of ${name} ${JSON.stringify(labels ?? {})}, found ${found.length}`);
      return found[0]!.value;
    },
  };
}

let root: string;
let master: JobMaster;
let result: Promise<JobResult>;
let rest: RestServer;

const get = async (path: string) => {
  const res = await fetch(`${rest.url}${path}`);
  assert.equal(res.status, 200, path);
  return { type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const scrape = async () => parse((await get('/metrics')).text);

/**
 * A REST view taken between two scrapes whose `same` figures agree: the figures only move with the
 * TaskManagers' reports and completed checkpoints, so the view saw what both scrapes saw.
 */
async function between<T>(path: string, same: (s: Scrape) => string): Promise<{ scrape: Scrape; view: T }> {
  for (let i = 0; ; i++) {
    const first = await scrape();
    const view = JSON.parse((await get(path)).text) as T;
    const second = await scrape();
    if (same(first) === same(second)) return { scrape: second, view };
    assert.ok(i < 50, `${path}: the figures kept moving`);
  }
}

before(async () => {
  root = makeTempDir('prometheus-metrics');
  master = await createJobMaster({ job: JOB, taskManagers: 2, config: { 'execution.checkpointing.dir': join(root, 'checkpoints') }, log: silentLogger });
  result = master.run();
  rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  await master.whenRunning();
  for (let i = 0; i < 3; i++) await master.checkpoints.trigger({ type: 'checkpoint' });
  // Rates need two reports of every subtask after records flowed (reports come every 500 ms).
  await new Promise((r) => setTimeout(r, 1500));
});

after(async () => {
  await master.cancel();
  await result;
  await rest.stop(SHUTDOWN, 0);
  removeDir(root);
});

test('task series: Flink names, one per subtask attempt with the task scope\'s labels, records as GET /jobs/:id has them', async () => {
  const source = master.graph.vertices.find((v) => v.isSource)!;
  const sum = master.graph.vertices.find((v) => v.name.startsWith('Sum'))!;
  const { scrape: s, view } = await between<JobDetailsView>(`/jobs/${master.jobId}`, (x) => JSON.stringify(x.all('flink_taskmanager_job_task_numRecordsIn').map((y) => y.value)));
  const names = ['numRecordsIn', 'numRecordsOut', 'numRecordsInPerSecond', 'numRecordsOutPerSecond', 'numBytesIn', 'numBytesOut', 'numBytesInPerSecond', 'numBytesOutPerSecond', 'busyTimeMsPerSecond', 'idleTimeMsPerSecond', 'backPressuredTimeMsPerSecond'];
  for (const name of names) {
    const full = `flink_taskmanager_job_task_${name}`;
    assert.equal(s.types.get(full), 'gauge', `${full}: Flink's reporter writes every figure as a gauge`);
    const series = s.all(full);
    assert.equal(series.length, 4, `${full}: two vertices at parallelism 2`);
    for (const x of series) {
      assert.deepEqual(Object.keys(x.labels).sort(), TASK_LABELS, full);
      assert.equal(x.labels.job_id, master.jobId);
      assert.equal(x.labels.job_name, 'Source:_numbers', 'the job is named after its first source, as in GET /jobs/overview');
      assert.equal(x.labels.host, flinkValue(hostname()));
      assert.equal(x.labels.task_attempt_num, '0');
      assert.equal(x.labels.task_attempt_id, `${master.jobId}_${x.labels.task_id}_${x.labels.subtask_index}_0`);
      assert.match(x.labels.tm_id!, /^[a-zA-Z0-9:_]+:\d+_[01]$/);
    }
  }
  const task = (v: typeof source, i: number) => ({ task_id: v.id, subtask_index: String(i) });
  assert.equal(s.all('flink_taskmanager_job_task_numRecordsIn', { task_id: sum.id })[0]!.labels.task_name, 'Sum____Sink:_discard');
  assert.deepEqual(new Set(s.all('flink_taskmanager_job_task_numRecordsIn').map((x) => x.labels.tm_id)).size, 2, 'two TaskManagers');
  for (const v of [source, sum]) {
    const vertex = view.vertices.find((x) => x.id === v.id)!;
    for (let i = 0; i < 2; i++) {
      assert.equal(s.one('flink_taskmanager_job_task_numRecordsIn', task(v, i)), vertex.subtasks[i]!['read-records'], `${v.name} ${i} in`);
      assert.equal(s.one('flink_taskmanager_job_task_numRecordsOut', task(v, i)), vertex.subtasks[i]!['write-records'], `${v.name} ${i} out`);
    }
  }
  assert.ok(s.one('flink_taskmanager_job_task_numRecordsIn', task(sum, 0)) + s.one('flink_taskmanager_job_task_numRecordsIn', task(sum, 1)) > 0);
  // 4000 records per second over both source subtasks, averaged since the attempt's first report.
  const sourceRate = [0, 1].reduce((n, i) => n + s.one('flink_taskmanager_job_task_numRecordsOutPerSecond', task(source, i)), 0);
  assert.ok(sourceRate > 1_000 && sourceRate < 6_000, `sources send ${sourceRate} records/s`);
  for (const v of [source, sum]) {
    for (let i = 0; i < 2; i++) {
      const busy = s.one('flink_taskmanager_job_task_busyTimeMsPerSecond', task(v, i));
      const idle = s.one('flink_taskmanager_job_task_idleTimeMsPerSecond', task(v, i));
      const pressured = s.one('flink_taskmanager_job_task_backPressuredTimeMsPerSecond', task(v, i));
      assert.ok(busy >= 0 && idle >= 0 && pressured >= 0);
      assert.ok(Math.abs(busy + idle + pressured - 1000) < 1e-6, `${v.name} ${i}: ${busy} + ${idle} + ${pressured}`);
    }
  }
  // A few thousand records a second leave a keyed sum (and a throttled source) waiting most of the time.
  for (let i = 0; i < 2; i++) assert.ok(s.one('flink_taskmanager_job_task_idleTimeMsPerSecond', task(sum, i)) > 300, 'Sum mostly idle');
  // Between the two TaskManagers records travel serialized: those bytes are counted.
  const bytesOut = [0, 1].reduce((n, i) => n + s.one('flink_taskmanager_job_task_numBytesOut', task(source, i)), 0);
  const bytesIn = [0, 1].reduce((n, i) => n + s.one('flink_taskmanager_job_task_numBytesIn', task(sum, i)), 0);
  assert.ok(bytesOut > 0 && bytesIn > 0, `bytes out ${bytesOut}, in ${bytesIn}`);
  assert.equal(s.one('flink_taskmanager_job_task_numBytesIn', task(source, 0)), 0, 'a source receives no buffers');
});

test('job series: checkpoint counts as GET /jobs/:id/checkpoints has them, latest checkpoint, restarts, uptime that grows', async () => {
  const completed = (x: Scrape) => String(x.one('flink_jobmanager_job_numberOfCompletedCheckpoints'));
  const { scrape: s, view } = await between<CheckpointsOverviewView>(`/jobs/${master.jobId}/checkpoints`, (x) => `${completed(x)}/${x.one('flink_jobmanager_job_totalNumberOfCheckpoints')}`);
  const job = { job_id: master.jobId };
  for (const name of ['uptime', 'numRestarts', 'lastCheckpointDuration', 'lastCheckpointSize', 'numberOfCompletedCheckpoints', 'numberOfFailedCheckpoints', 'numberOfInProgressCheckpoints', 'totalNumberOfCheckpoints', 'lastCheckpointRestoreTimestamp']) {
    const full = `flink_jobmanager_job_${name}`;
    assert.equal(s.types.get(full), 'gauge', full);
    const [x, ...more] = s.all(full);
    assert.equal(more.length, 0, full);
    assert.deepEqual(Object.keys(x!.labels).sort(), JOB_LABELS, full);
    assert.deepEqual(x!.labels, { job_id: master.jobId, job_name: 'Source:_numbers', host: flinkValue(hostname()) });
  }
  assert.equal(s.one('flink_jobmanager_job_numberOfCompletedCheckpoints', job), view.counts.completed);
  assert.ok(view.counts.completed >= 3);
  assert.equal(s.one('flink_jobmanager_job_totalNumberOfCheckpoints', job), view.counts.total);
  assert.equal(s.one('flink_jobmanager_job_numberOfFailedCheckpoints', job), view.counts.failed);
  assert.equal(s.one('flink_jobmanager_job_numberOfInProgressCheckpoints', job), view.counts.in_progress);
  assert.equal(s.one('flink_jobmanager_job_lastCompletedCheckpointId', job), view.latest.completed!.id);
  assert.equal(s.one('flink_jobmanager_job_lastCheckpointDuration', job), view.latest.completed!.end_to_end_duration);
  assert.equal(s.one('flink_jobmanager_job_lastCheckpointSize', job), view.latest.completed!.state_size);
  assert.ok(view.latest.completed!.state_size > 0, 'the sums are keyed state');
  assert.equal(s.one('flink_jobmanager_job_numRestarts', job), 0);
  assert.equal(s.one('flink_jobmanager_job_lastCheckpointRestoreTimestamp', job), -1, 'never restored');
  assert.equal(s.one('flink_jobmanager_numRunningJobs'), 1);

  const uptime = s.one('flink_jobmanager_job_uptime', job);
  assert.ok(uptime > 1_000 && uptime <= Date.now() - master.startedAt, `uptime ${uptime} ms`);
  await new Promise((r) => setTimeout(r, 200));
  const later = (await scrape()).one('flink_jobmanager_job_uptime', job);
  assert.ok(later >= uptime + 200, `uptime grows: ${uptime} then ${later}`);
});

test('checkpoint duration histogram: every completed checkpoint observed, in buckets from milliseconds to minutes', async () => {
  const s = await scrape();
  const job = { job_id: master.jobId };
  assert.equal(s.types.get('weir_checkpoint_duration_seconds'), 'histogram');
  const count = s.one('weir_checkpoint_duration_seconds_count', job);
  // Observed in the same synchronous step that counts a completion: one scrape sees both alike.
  assert.equal(count, s.one('flink_jobmanager_job_numberOfCompletedCheckpoints', job));
  assert.ok(count >= 3);
  const buckets = s.all('weir_checkpoint_duration_seconds_bucket', job);
  const bounds = buckets.map((b) => b.labels.le);
  assert.equal(bounds[0], '0.005');
  assert.ok(bounds.includes('600') && bounds.at(-1) === '+Inf', bounds.join(' '));
  for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i]!.value >= buckets[i - 1]!.value, 'cumulative');
  assert.equal(buckets.at(-1)!.value, count);
  const sum = s.one('weir_checkpoint_duration_seconds_sum', job);
  assert.ok(sum > 0 && sum < count * 60, `sum ${sum} s`);
});

test('the Node process: heap, event-loop delay, GC, CPU', async () => {
  const { type, text } = await get('/metrics');
  assert.match(type, /^text\/plain; version=0\.0\.4/);
  const s = parse(text);
  assert.ok(s.one('nodejs_heap_size_used_bytes') > 0);
  assert.ok(s.one('process_cpu_seconds_total') > 0);
  assert.equal(s.types.get('nodejs_eventloop_lag_seconds'), 'gauge');
  assert.ok(s.one('nodejs_eventloop_lag_p99_seconds') >= 0);
  assert.equal(s.types.get('nodejs_gc_duration_seconds'), 'histogram');
});

test("weir's own names still answer, one to one with Flink's where both exist", async () => {
  const s = await scrape();
  const job = { job_id: master.jobId };
  for (const [weir, flink, scale] of [
    ['weir_checkpoints_completed_total', 'flink_jobmanager_job_numberOfCompletedCheckpoints', 1],
    ['weir_checkpoints_total', 'flink_jobmanager_job_totalNumberOfCheckpoints', 1],
    ['weir_checkpoints_failed_total', 'flink_jobmanager_job_numberOfFailedCheckpoints', 1],
    ['weir_checkpoints_in_progress', 'flink_jobmanager_job_numberOfInProgressCheckpoints', 1],
    ['weir_job_restarts_total', 'flink_jobmanager_job_numRestarts', 1],
    ['weir_last_checkpoint_duration_seconds', 'flink_jobmanager_job_lastCheckpointDuration', 1000],
    ['weir_last_checkpoint_size_bytes', 'flink_jobmanager_job_lastCheckpointSize', 1],
  ] as const) {
    assert.ok(Math.abs(s.one(weir, job) * scale - s.one(flink, job)) < 1e-6, `${weir} is ${flink}`);
  }
  assert.equal(s.types.get('weir_checkpoints_completed_total'), 'counter');
  assert.equal(s.one('weir_job_running', job), 1);
  assert.ok(s.one('weir_job_uptime_seconds', job) > 1);
  for (const v of master.graph.vertices) {
    for (let i = 0; i < v.parallelism; i++) {
      const weir = { job_id: master.jobId, vertex: v.name, subtask: String(i) };
      const flink = { task_id: v.id, subtask_index: String(i) };
      assert.equal(s.one('weir_task_records_in_total', weir), s.one('flink_taskmanager_job_task_numRecordsIn', flink));
      assert.equal(s.one('weir_task_records_out_total', weir), s.one('flink_taskmanager_job_task_numRecordsOut', flink));
      assert.equal(s.one('weir_task_bytes_out_total', weir), s.one('flink_taskmanager_job_task_numBytesOut', flink));
      // Flink's in whole milliseconds.
      assert.ok(Math.abs(s.one('weir_task_idle_seconds_total', weir) * 1000 - s.one('flink_taskmanager_job_task_accumulateIdleTimeMs', flink)) <= 0.5);
      assert.ok(Math.abs(s.one('weir_task_backpressured_seconds_total', weir) * 1000 - s.one('flink_taskmanager_job_task_accumulateBackPressuredTimeMs', flink)) <= 0.5);
    }
  }
});
