// Every read endpoint of the REST API against a running job, GET /metrics, and the CLI's
// `weir list` and `weir checkpoints` (human and --json) against it, also where reads need the token.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, defineJob, type JobMaster, type JobResult } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer, type RestServer } from '../../src/rest/rest-server.ts';
import type { CheckpointsOverviewView } from '../../src/rest/rest-views.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';
import { weir as runWeir } from '../fixtures/weir-process.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

let root: string;
let master: JobMaster;
let result: Promise<JobResult>;
let rest: RestServer;

const job = defineJob((env) => {
  env.setParallelism(2);
  env.enableCheckpointing({ interval: 100, mode: 'exactly-once' });
  env
    .fromSource(DataGen.of((i) => i % 50, { ratePerSecond: 4_000 }), { name: 'Source: numbers', uid: 'source' })
    .keyBy((n) => n)
    .sum(undefined, { name: 'Sum', uid: 'counts' })
    .sinkTo(new DiscardSink<number>(), { name: 'Sink: discard', uid: 'sink' });
});

const get = async (path: string) => {
  const res = await fetch(`${rest.url}${path}`);
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const json = async (path: string) => {
  const r = await get(path);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  return JSON.parse(r.text) as Record<string, any>;
};

before(async () => {
  root = makeTempDir('rest-endpoints');
  master = await createJobMaster({ job, config: { 'execution.checkpointing.dir': join(root, 'checkpoints') }, log: silentLogger });
  result = master.run();
  rest = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  await master.whenRunning();
  // Wait for a few completed checkpoints: the coordinator's trigger promise is the event.
  for (let i = 0; i < 3; i++) await master.checkpoints.trigger({ type: 'checkpoint' });
  // Subtask figures arrive with the TaskManagers' periodic reports (every 500 ms).
  const subtasks = master.graph.vertices.reduce((n, v) => n + v.parallelism, 0);
  while (master.taskMetrics().length < subtasks) await new Promise((r) => setTimeout(r, 50));
});

after(async () => {
  await master.cancel();
  await result;
  await rest.stop(SHUTDOWN, 0);
  removeDir(root);
});

test('job endpoints: overview, list, details with vertices, subtasks and record counts, exceptions', async () => {
  const overview = await json('/overview');
  assert.equal(overview['jobs-running'], 1);
  const jobs = await json('/jobs');
  assert.deepEqual(jobs.jobs, [{ id: master.jobId, status: 'RUNNING' }]);
  const details = await json(`/jobs/${master.jobId}`);
  assert.equal(details.jid, master.jobId);
  assert.equal(details.state, 'RUNNING');
  const names = details.vertices.map((v: { name: string }) => v.name);
  assert.deepEqual(names, master.graph.vertices.map((v) => v.name));
  const sum = details.vertices.find((v: { name: string }) => v.name.startsWith('Sum'));
  assert.equal(sum.parallelism, 2);
  assert.equal(sum.subtasks.length, 2);
  assert.equal(sum.inputs[0].ship_strategy, 'HASH');
  const exceptions = await json(`/jobs/${master.jobId}/exceptions`);
  assert.deepEqual(exceptions.exceptionHistory.entries, []);
});

test('checkpoint endpoints: counts, summary, history, config, details and per-subtask figures', async () => {
  const cp = await json(`/jobs/${master.jobId}/checkpoints`);
  assert.ok(cp.counts.completed >= 3, JSON.stringify(cp.counts));
  for (const k of ['end_to_end_duration', 'state_size', 'processed_data', 'persisted_data']) {
    for (const stat of ['min', 'max', 'avg', 'p50', 'p90', 'p99']) assert.equal(typeof cp.summary[k][stat], 'number', `${k}.${stat}`);
  }
  const latest = cp.latest.completed;
  assert.equal(latest.status, 'COMPLETED');
  assert.equal(latest.num_acknowledged_subtasks, latest.num_subtasks);
  assert.ok(latest.external_path.includes(`chk-${latest.id}`));
  const config = await json(`/jobs/${master.jobId}/checkpoints/config`);
  assert.equal(config.mode, 'exactly_once', "Flink's spelling, which its clients parse");
  assert.equal(config.interval, 100);
  assert.equal(config.tolerable_failed_checkpoints, 0);
  const detail = await json(`/jobs/${master.jobId}/checkpoints/details/${latest.id}`);
  assert.equal(detail.id, latest.id);
  const sum = master.graph.vertices.find((v) => v.name.startsWith('Sum'))!;
  assert.equal(detail.tasks[sum.id].num_acknowledged_subtasks, 2);
  const subtasks = await json(`/jobs/${master.jobId}/checkpoints/details/${latest.id}/subtasks/${sum.id}`);
  assert.equal(subtasks.subtasks.length, 2);
  for (const s of subtasks.subtasks) {
    assert.equal(typeof s.checkpoint.sync, 'number');
    assert.equal(typeof s.alignment.duration, 'number');
    assert.equal(typeof s.start_delay, 'number');
    assert.equal(s.unaligned_checkpoint, false);
    assert.ok(s.state_size > 0, 'the Sum subtasks hold keyed state');
  }
  assert.equal((await get(`/jobs/${master.jobId}/checkpoints/details/999999`)).status, 404);
  assert.equal((await get(`/jobs/${master.jobId}/checkpoints/details/abc`)).status, 400);
});

test('GET /metrics is Prometheus text with checkpoint, record, backpressure and restart figures', async () => {
  const r = await get('/metrics');
  assert.equal(r.status, 200);
  assert.match(r.type, /^text\/plain/);
  const completed = Number(new RegExp(`weir_checkpoints_completed_total\\{job_id="${master.jobId}"\\} (\\d+)`).exec(r.text)?.[1]);
  assert.ok(completed >= 3);
  for (const name of ['weir_job_restarts_total', 'weir_last_checkpoint_duration_seconds', 'weir_task_records_in_total', 'weir_task_backpressured_seconds_total']) {
    assert.match(r.text, new RegExp(`# TYPE ${name} `));
  }
  assert.match(r.text, /weir_task_records_in_total\{job_id="[0-9a-f]{32}",vertex="Sum -> Sink: discard",subtask="1"\} \d+/);
});

// Asynchronous: the REST server answering the CLI runs in this process.
const weir = (...args: string[]) => runWeir(args, { WEIR_HOME: root });

test('weir list and weir checkpoints, human and --json', async () => {
  const address = rest.url.replace('http://', '');
  const list = await weir('list', '--jobmanager', address);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, new RegExp(`${master.jobId}\\s+RUNNING`));
  const listJson = JSON.parse((await weir('list', '--jobmanager', address, '--json')).stdout) as { jobs: Array<{ id: string; status: string }> };
  assert.deepEqual(listJson.jobs.map((j) => [j.id, j.status]), [[master.jobId, 'RUNNING']]);
  const human = await weir('checkpoints', master.jobId, '--jobmanager', address, '--limit', '5');
  assert.equal(human.code, 0, human.stderr);
  assert.match(human.stdout, /checkpoints of job [0-9a-f]{32}: \d+ completed/);
  assert.match(human.stdout, /^\s+\d+\s+COMPLETED\s+checkpoint\s/m);
  const asJson = JSON.parse((await weir('checkpoints', master.jobId, '--jobmanager', address, '--json')).stdout) as CheckpointsOverviewView;
  assert.ok(asJson.counts.completed >= 3);
  assert.ok(asJson.history.length >= 3);
  const unknown = await weir('checkpoints', '0123456789abcdef0123456789abcdef', '--jobmanager', address);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /404 job 0123456789abcdef0123456789abcdef not found/);
  const nobody = await weir('list', '--jobmanager', '127.0.0.1:1');
  assert.notEqual(nobody.code, 0);
  assert.match(nobody.stderr, /no JobManager answers at http:\/\/127\.0\.0\.1:1/);
});

test('weir list says which JobManager it asked: the one given by -m, or none when no weir run registered one', async () => {
  const address = rest.url.replace('http://', '');
  const given = await weir('list', '--jobmanager', address);
  assert.equal(given.code, 0, given.stderr);
  assert.match(given.stdout, new RegExp(`^Asked the JobManager at ${rest.url.replace(/[.]/g, '\\.')}\\.$`, 'm'));
  const asJson = JSON.parse((await weir('list', '--jobmanager', address, '--json')).stdout) as { jobmanagers: string[] };
  assert.deepEqual(asJson.jobmanagers, [rest.url]);
  // An empty WEIR_HOME: no weir run registered, so no JobManager was asked, and -m is the way to ask one.
  const none = await runWeir(['list'], { WEIR_HOME: join(root, 'empty-home') });
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stdout, /^No running jobs\.\nAsked no JobManager: no -m given, and no weir run on this machine has registered one \(weir list -m host:port asks a JobManager\)\.$/m);
});

test('a job the JobManager does not know: the error names the JobManager asked and how it was chosen, and suggests -m', async () => {
  const address = rest.url.replace('http://', '');
  const absent = '0123456789abcdef0123456789abcdef';
  const viaFlag = await weir('savepoint', absent, '--jobmanager', address);
  assert.equal(viaFlag.code, 2, viaFlag.stderr);
  assert.match(viaFlag.stderr, new RegExp(`404 job ${absent} not found \\(asked the JobManager at ${rest.url.replace(/[.]/g, '\\.')} \\(-m\\)\\)`));
  // Registered by a weir run on this machine (as the CLI finds a job without -m): the address it
  // registered is the one asked, and -m is suggested for a job that runs elsewhere.
  const home = join(root, 'home-with-registration');
  mkdirSync(join(home, 'jobs'), { recursive: true });
  writeFileSync(join(home, 'jobs', `${absent}.json`), JSON.stringify({ jobId: absent, url: rest.url, pid: process.pid, startedAt: Date.now() }));
  for (const command of [['savepoint', absent], ['stop', absent, '--savepoint', join(root, 'sp')], ['checkpoint', absent], ['cancel', absent], ['checkpoints', absent]]) {
    const r = await runWeir(command, { WEIR_HOME: home });
    assert.equal(r.code, 2, `${command[0]}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`404 job ${absent} not found \\(asked the JobManager at ${rest.url.replace(/[.]/g, '\\.')}, where this job's weir run registered on this machine; if the job runs elsewhere, pass -m host:port\\)`), command[0]);
  }
  assert.equal(master.status, 'RUNNING');
});

test('where reads need the token (rest.token-required-for-reads), weir list and weir checkpoints send --token', async () => {
  const token = 'a-token-for-reads';
  const guarded = await startRestServer({ master, host: '127.0.0.1', port: 0, token, tokenRequiredForReads: true, log: silentLogger });
  try {
    const address = guarded.url.replace('http://', '');
    const refused = await weir('list', '--jobmanager', address);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /401 GET \/jobs\/overview needs Authorization: Bearer <rest\.token>/);
    const list = await weir('list', '--jobmanager', address, '--token', token, '--json');
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual((JSON.parse(list.stdout) as { jobs: Array<{ id: string }> }).jobs.map((j) => j.id), [master.jobId]);
    const checkpoints = await weir('checkpoints', master.jobId, '--jobmanager', address, '--token', token, '--json');
    assert.equal(checkpoints.code, 0, checkpoints.stderr);
    assert.ok((JSON.parse(checkpoints.stdout) as CheckpointsOverviewView).counts.completed >= 3);
  } finally {
    await guarded.stop(SHUTDOWN, 0);
  }
});
