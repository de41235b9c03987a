// weir's REST API against Apache Flink's published specification (test/fixtures/flink/): every
// endpoint weir implements answers a running job with a body valid against Flink's response
// schema, at / and under /v1/; then a job is driven the way Flink's CLI (RestClusterClient) does
// it over REST: list, savepoint with formatType and a client-chosen triggerId, stop, cancel, and
// Flink 1.19's manual checkpoint (with `weir checkpoint`).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, defineJob, type JobMaster, type JobResult } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer, type RestServer } from '../../src/rest/rest-server.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { loadFlinkSpec } from '../fixtures/flink/flink-spec.ts';
import { makeTempDir, REPO_ROOT, removeDir, sleep } from '../fixtures/recovery-helpers.ts';
import { weir as runWeir } from '../fixtures/weir-process.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const spec = loadFlinkSpec();
const JOB_NAME = 'Numbers per key';
const PKG = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

let root: string;
let master: JobMaster;
let result: Promise<JobResult>;
let rest: RestServer;

/** An endless keyed count whose periodic checkpoints are an hour apart: every checkpoint here is one the test asked for. */
const job = defineJob((env) => {
  env.setParallelism(2);
  env.setJobName(JOB_NAME);
  env.enableCheckpointing({ interval: '1 h', mode: 'exactly-once' });
  env
    .fromSource(DataGen.of((i) => i % 50, { ratePerSecond: 2_000 }), { name: 'Source: numbers', uid: 'source' })
    .keyBy((n) => n)
    .sum(undefined, { name: 'Sum', uid: 'counts' })
    .sinkTo(new DiscardSink<number>(), { name: 'Sink: discard', uid: 'sink' });
});

interface Answer {
  readonly status: number;
  readonly body: any;
}

async function send(server: RestServer, method: string, path: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: body !== undefined ? { 'content-type': 'application/json' } : {},
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The answer, which must have this status and be valid against Flink's schema for it. */
async function flink(server: RestServer, method: string, path: string, status: number, body?: unknown): Promise<any> {
  const r = await send(server, method, path, body);
  assert.equal(r.status, status, `${method} ${path}: ${JSON.stringify(r.body)}`);
  const problems = spec.check(method, path, status, r.body);
  assert.deepEqual(problems, [], `${method} ${path} is not as Flink's specification says: ${JSON.stringify(r.body).slice(0, 2000)}`);
  return r.body;
}

const triggerId = () => randomBytes(16).toString('hex');

async function completed(server: RestServer, path: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const body = await flink(server, 'GET', path, 200);
    if (body.status.id === 'COMPLETED') return body;
    await sleep(25);
  }
  throw new Error(`${path} did not complete`);
}

async function startJob(name: string): Promise<{ master: JobMaster; result: Promise<JobResult>; rest: RestServer }> {
  const m = await createJobMaster({
    job,
    config: { 'execution.checkpointing.dir': join(root, name, 'checkpoints'), 'execution.checkpointing.savepoint-dir': join(root, name, 'savepoints') },
    log: silentLogger,
  });
  const r = m.run();
  const server = await startRestServer({ master: m, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  await m.whenRunning();
  return { master: m, result: r, rest: server };
}

before(async () => {
  root = makeTempDir('flink-spec');
  ({ master, result, rest } = await startJob('main'));
  for (let i = 0; i < 2; i++) await master.checkpoints.trigger({ type: 'checkpoint' });
  // Subtask figures arrive with the TaskManagers' periodic reports (every 500 ms): wait for ones with records.
  const source = master.graph.vertices.find((v) => v.isSource)!;
  const counted = () => {
    const t = master.taskMetrics();
    return t.filter((x) => x.vertexId === source.id && x.recordsOut > 0).length === source.parallelism && t.filter((x) => x.vertexId !== source.id && x.recordsIn > 0).length >= 2;
  };
  while (!counted()) await sleep(50);
});

after(async () => {
  await master.cancel();
  await result;
  await rest.stop(SHUTDOWN, 0);
  removeDir(root);
});

test("the validator holds weir to Flink's schemas: what Flink's clients would not parse fails", () => {
  assert.notDeepEqual(spec.checkSchema('CheckpointConfigInfo', { mode: 'exactly-once' }), [], "weir's old spelling of the mode");
  assert.notDeepEqual(spec.checkSchema('JobDetails', { jid: master.jobId, state: 'running' }), [], 'a lower-case job state');
  assert.notDeepEqual(spec.checkSchema('CheckpointingStatistics', { history: [{ className: 'completed', id: 1, external_path: 7 }] }), [], 'a completed checkpoint whose path is not a string');
  assert.notDeepEqual(spec.checkSchema('TaskCheckpointStatisticsWithSubtaskDetails', { subtasks: [{ index: 0, status: 'completed' }] }), [], 'a subtask entry without className');
  assert.notDeepEqual(spec.check('GET', `/v1/jobs/${master.jobId}/metrics`, 200, [{ id: 'numRestarts', value: 0 }]), [], 'a metric value that is not a string');
  assert.notDeepEqual(spec.check('GET', '/v1/no-such-path', 200, {}), [], 'a path Flink does not have');
});

test("every read endpoint answers as Flink's specification says, at / and under /v1/", async () => {
  const id = master.jobId;
  const sum = master.graph.vertices.find((v) => v.name.startsWith('Sum'))!;
  const source = master.graph.vertices.find((v) => v.isSource)!;
  const latest = master.checkpoints.stats.history().at(-1)!.id;
  const paths = [
    '/overview',
    '/config',
    '/jobs',
    '/jobs/overview',
    '/jobs/metrics',
    '/jobs/metrics?get=numRestarts,numberOfCompletedCheckpoints',
    `/jobs/metrics?get=numberOfCompletedCheckpoints&agg=max,MIN&jobs=${id}`,
    `/jobs/${id}`,
    `/jobs/${id}/status`,
    `/jobs/${id}/exceptions`,
    `/jobs/${id}/config`,
    `/jobs/${id}/plan`,
    `/jobs/${id}/metrics`,
    `/jobs/${id}/metrics?get=numRestarts,lastCheckpointDuration`,
    `/jobs/${id}/checkpoints`,
    `/jobs/${id}/checkpoints/config`,
    `/jobs/${id}/checkpoints/details/${latest}`,
    `/jobs/${id}/checkpoints/details/${latest}/subtasks/${sum.id}`,
    `/jobs/${id}/vertices/${sum.id}`,
    `/jobs/${id}/vertices/${sum.id}/backpressure`,
    `/jobs/${id}/vertices/${sum.id}/watermarks`,
    `/jobs/${id}/vertices/${sum.id}/metrics`,
    `/jobs/${id}/vertices/${sum.id}/metrics?get=0.numRecordsIn,1.backPressuredTimeMsPerSecond`,
    `/jobs/${id}/vertices/${source.id}/subtasks/metrics`,
    `/jobs/${id}/vertices/${source.id}/subtasks/metrics?get=numRecordsOut&subtasks=0-1`,
  ];
  const answers = new Map<string, any>();
  for (const path of paths) {
    answers.set(path, await flink(rest, 'GET', `/v1${path}`, 200));
    await flink(rest, 'GET', path, 200);
  }
  // The same answer at both: one registration serves / and /v1/.
  assert.deepEqual(await flink(rest, 'GET', `/jobs/${id}/plan`, 200), answers.get(`/jobs/${id}/plan`));

  // What Flink's clients read from them.
  const overview = answers.get('/jobs/overview').jobs[0];
  const subtasks = master.graph.vertices.reduce((n, v) => n + v.parallelism, 0);
  assert.equal(overview.name, JOB_NAME, "env.setJobName's name, not the first source's");
  assert.equal(overview.state, 'RUNNING');
  assert.deepEqual(overview.tasks, { total: subtasks, created: 0, scheduled: 0, deploying: 0, running: subtasks, finished: 0, canceling: 0, canceled: 0, failed: 0, reconciling: 0, initializing: 0 });
  assert.ok(overview['last-modification'] >= overview['start-time'] && overview['end-time'] === -1, JSON.stringify(overview));
  assert.equal(answers.get(`/jobs/${id}/checkpoints/config`).mode, 'exactly_once');
  assert.equal(answers.get('/config')['flink-version'], `${PKG.name} ${PKG.version}`);
  assert.equal(answers.get('/overview')['flink-version'], `${PKG.name} ${PKG.version}`);

  const details = answers.get(`/jobs/${id}`);
  assert.equal(details.name, JOB_NAME);
  assert.deepEqual(details['status-counts'].RUNNING, subtasks);
  for (const v of details.vertices) assert.equal(v.status, 'RUNNING', v.name);
  assert.ok(details.vertices.find((v: { id: string }) => v.id === source.id).metrics['write-records'] > 0, 'the sources wrote records');

  const vertex = answers.get(`/jobs/${id}/vertices/${sum.id}`);
  assert.equal(vertex.parallelism, 2);
  assert.deepEqual(vertex.subtasks.map((s: { subtask: number; status: string }) => [s.subtask, s.status]), [[0, 'RUNNING'], [1, 'RUNNING']]);
  const bp = answers.get(`/jobs/${id}/vertices/${sum.id}/backpressure`);
  assert.equal(bp.subtasks.length, 2);
  for (const s of bp.subtasks) assert.ok(s.ratio >= 0 && s.ratio <= 1 && Math.abs(s.busyRatio + s.idleRatio + s.ratio - 1) < 1e-9, JSON.stringify(s));
  assert.deepEqual(answers.get(`/jobs/${id}/vertices/${sum.id}/watermarks`), [
    { id: '0.currentInputWatermark', value: '-9223372036854775808' },
    { id: '1.currentInputWatermark', value: '-9223372036854775808' },
  ]);

  // Metric queries: without `get` the ids there are, with `get` those asked for with values.
  const available = answers.get(`/jobs/${id}/vertices/${sum.id}/metrics`).map((m: { id: string }) => m.id);
  assert.ok(available.includes('0.numRecordsIn') && available.includes('1.backPressuredTimeMsPerSecond'), available.join(', '));
  const picked = answers.get(`/jobs/${id}/vertices/${sum.id}/metrics?get=0.numRecordsIn,1.backPressuredTimeMsPerSecond`);
  assert.deepEqual(picked.map((m: { id: string }) => m.id), ['0.numRecordsIn', '1.backPressuredTimeMsPerSecond']);
  assert.ok(Number(picked[0].value) > 0, 'Sum subtask 0 read records');
  const jobAgg = answers.get(`/jobs/metrics?get=numberOfCompletedCheckpoints&agg=max,MIN&jobs=${id}`);
  assert.deepEqual(jobAgg, [{ id: 'numberOfCompletedCheckpoints', max: 2, min: 2 }]);
  const all = answers.get('/jobs/metrics?get=numRestarts,numberOfCompletedCheckpoints');
  assert.deepEqual(all.find((m: { id: string }) => m.id === 'numRestarts'), { id: 'numRestarts', min: 0, max: 0, avg: 0, sum: 0, skew: 0 });
  const sourceOut = answers.get(`/jobs/${id}/vertices/${source.id}/subtasks/metrics?get=numRecordsOut&subtasks=0-1`)[0];
  assert.ok(sourceOut.sum > 0 && sourceOut.sum === sourceOut.avg * 2, JSON.stringify(sourceOut));
  assert.equal((await send(rest, 'GET', '/v1/jobs/metrics?agg=median')).status, 400, 'an unknown aggregation');
  assert.equal((await send(rest, 'GET', `/v1/jobs/${id}/vertices/${source.id}/subtasks/metrics?subtasks=1-x`)).status, 400, 'a malformed subtask range');
  assert.equal((await send(rest, 'GET', `/v1/jobs/${id}/vertices/0123456789abcdef0123456789abcdef`)).status, 404, 'an unknown vertex');

  // weir's `latest` alias: the newest checkpoint.
  assert.equal((await flink(rest, 'GET', `/v1/jobs/${id}/checkpoints/details/${latest}`, 200)).id, (await send(rest, 'GET', `/v1/jobs/${id}/checkpoints/details/latest`)).body.id);
  assert.equal(answers.get(`/jobs/${id}/checkpoints/details/${latest}/subtasks/${sum.id}`).subtasks.every((s: { className: string }) => s.className === 'completed'), true);
});

test("a manual checkpoint (Flink 1.19's POST /jobs/:id/checkpoints): a repeated triggerId is the same one; weir checkpoint prints its id and path", async () => {
  const id = master.jobId;
  const before = master.checkpoints.stats.counts.total;
  const trigger = triggerId();
  const first = await flink(rest, 'POST', `/v1/jobs/${id}/checkpoints`, 202, { checkpointType: 'FULL', triggerId: trigger });
  assert.deepEqual(first, { 'request-id': trigger }, 'the operation is found under the id the client chose');
  assert.deepEqual(await flink(rest, 'POST', `/v1/jobs/${id}/checkpoints`, 202, { checkpointType: 'FULL', triggerId: trigger }), { 'request-id': trigger });
  const done = await completed(rest, `/v1/jobs/${id}/checkpoints/${trigger}`);
  assert.equal(typeof done.operation.checkpointId, 'number', JSON.stringify(done));
  assert.equal(master.checkpoints.stats.counts.total, before + 1, 'the second POST with the same triggerId took no second checkpoint');
  assert.equal(master.checkpoints.stats.get(done.operation.checkpointId)?.status, 'COMPLETED');
  assert.ok(existsSync(join(done.operation.location, '_metadata')), done.operation.location);
  // Also without a body's fields, polled at / (the operations are shared by / and /v1/).
  const plain = await flink(rest, 'POST', `/jobs/${id}/checkpoints`, 202, {});
  assert.ok((await completed(rest, `/jobs/${id}/checkpoints/${plain['request-id']}`)).operation.checkpointId > done.operation.checkpointId);
  for (const bad of [{ checkpointType: 'FULL', checkpointTyp: 'FULL' }, { checkpointType: 'SAVEPOINT' }, { triggerId: 'not-32-hex' }]) {
    assert.equal((await send(rest, 'POST', `/v1/jobs/${id}/checkpoints`, bad)).status, 400, JSON.stringify(bad));
  }
  assert.equal((await send(rest, 'GET', `/v1/jobs/${id}/checkpoints/${triggerId()}`)).status, 404, 'an unknown trigger id');

  const address = rest.url.replace('http://', '');
  const weir = (...args: string[]) => runWeir(args, { WEIR_HOME: join(root, 'weir-home') });
  const human = await weir('checkpoint', id, '--jobmanager', address);
  assert.equal(human.code, 0, human.stderr);
  const m = /^Checkpoint (\d+) completed\. Path: (.+)$/m.exec(human.stdout);
  assert.ok(m, human.stdout);
  assert.equal((await readMetadata(m[2]!)).metadata.checkpointId, Number(m[1]));
  const asJson = JSON.parse((await weir('checkpoint', id, '--jobmanager', address, '--json')).stdout) as { checkpointId: number; location: string };
  assert.ok(asJson.checkpointId > Number(m[1]) && asJson.location.endsWith(`chk-${asJson.checkpointId}`), JSON.stringify(asJson));
  const list = JSON.parse((await weir('list', '--jobmanager', address, '--json')).stdout) as { jobs: Array<{ id: string; name: string }> };
  assert.deepEqual(list.jobs.map((j) => [j.id, j.name]), [[id, JOB_NAME]], 'weir list shows the job name');
});

test("Flink's CLI over REST: list, savepoint with formatType and triggerId (idempotent), stop with drain, formatType, targetDirectory and triggerId", async () => {
  const id = master.jobId;
  const jobs = await flink(rest, 'GET', '/v1/jobs/overview', 200);
  assert.deepEqual(jobs.jobs.map((j: { jid: string }) => j.jid), [id]);

  const dir = join(root, 'flink-savepoints');
  const trigger = triggerId();
  const body = { 'target-directory': dir, 'cancel-job': false, formatType: 'CANONICAL', triggerId: trigger };
  assert.deepEqual(await flink(rest, 'POST', `/v1/jobs/${id}/savepoints`, 202, body), { 'request-id': trigger });
  assert.deepEqual(await flink(rest, 'POST', `/v1/jobs/${id}/savepoints`, 202, body), { 'request-id': trigger }, 'a retry with the same triggerId');
  const savepoint = await completed(rest, `/v1/jobs/${id}/savepoints/${trigger}`);
  assert.ok(savepoint.operation.location.startsWith(dir), JSON.stringify(savepoint));
  assert.equal(readdirSync(dir).length, 1, 'one savepoint for the two POSTs with one triggerId');
  assert.equal((await readMetadata(savepoint.operation.location)).metadata.type, 'savepoint');
  // NATIVE is accepted too, and so is Flink's client's null for "no directory" (the configured one) and "no trigger id".
  const native = await flink(rest, 'POST', `/v1/jobs/${id}/savepoints`, 202, { 'target-directory': null, 'cancel-job': false, formatType: 'NATIVE', triggerId: null });
  assert.ok((await completed(rest, `/v1/jobs/${id}/savepoints/${native['request-id']}`)).operation.location.startsWith(join(root, 'main', 'savepoints')));
  for (const bad of [{ ...body, formatTyp: 'CANONICAL' }, { ...body, formatType: 'canonical' }, { ...body, triggerId: 'abc' }]) {
    assert.equal((await send(rest, 'POST', `/v1/jobs/${id}/savepoints`, bad)).status, 400, JSON.stringify(bad));
  }

  const stopDir = join(root, 'flink-stop');
  const stopTrigger = triggerId();
  const stop = await flink(rest, 'POST', `/v1/jobs/${id}/stop`, 202, { drain: false, formatType: 'CANONICAL', targetDirectory: stopDir, triggerId: stopTrigger });
  assert.deepEqual(stop, { 'request-id': stopTrigger });
  const stopped = await completed(rest, `/v1/jobs/${id}/savepoints/${stopTrigger}`);
  assert.ok(stopped.operation.location.startsWith(stopDir), JSON.stringify(stopped));
  assert.equal((await result).status, 'FINISHED');
  const ended = await flink(rest, 'GET', '/v1/jobs/overview', 200);
  assert.equal(ended.jobs[0].state, 'FINISHED');
  assert.ok(ended.jobs[0]['end-time'] >= ended.jobs[0]['start-time'], 'an ended job has its end time');
});

test("Flink's CLI over REST: cancel (PATCH /v1/jobs/:id?mode=cancel)", async () => {
  const other = await startJob('cancel');
  try {
    assert.equal((await send(other.rest, 'PATCH', `/v1/jobs/${other.master.jobId}?mode=cancel`)).status, 202);
    assert.equal((await other.result).status, 'CANCELED');
    const overview = await flink(other.rest, 'GET', '/v1/jobs/overview', 200);
    assert.equal(overview.jobs[0].state, 'CANCELED');
    assert.equal(overview.jobs[0].tasks.running, 0);
  } finally {
    await other.rest.stop(SHUTDOWN, 0);
  }
});
