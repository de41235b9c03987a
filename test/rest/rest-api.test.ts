// The JobManager's REST API around savepoints: unknown jobs get 404, bad bodies 400 (both as JSON
// `{ errors }`) and change nothing; beyond loopback, mutating calls need the bearer token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createJobMaster, defineJob, type JobMaster, type JobResult } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { isTerminal } from '../../src/coordinator/job-status.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer, type RestServer } from '../../src/rest/rest-server.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { makeTempDir, removeDir, sleep } from '../fixtures/recovery-helpers.ts';

const OTHER_JOB = '0123456789abcdef0123456789abcdef';
const TOKEN = 'a-long-random-token-for-the-test';

let root: string;
let master: JobMaster;
let result: Promise<JobResult>;
let local: RestServer;
let open: RestServer;

/** An endless, slow keyed count: it runs until the tests cancel it. */
const job = defineJob((env) => {
  env.setParallelism(2);
  env.enableCheckpointing({ interval: 200, mode: 'exactly-once' });
  env
    .fromSource(DataGen.of((i) => i % 50, { ratePerSecond: 2_000 }), { name: 'Source: numbers', uid: 'source' })
    .keyBy((n) => n)
    .sum(undefined, { name: 'Sum', uid: 'counts' })
    .sinkTo(new DiscardSink<number>(), { name: 'Sink: discard', uid: 'sink' });
});

interface Reply {
  readonly status: number;
  readonly contentType: string;
  readonly body: Record<string, unknown>;
}

async function send(server: RestServer, method: string, path: string, options: { body?: unknown; raw?: string; token?: string } = {}): Promise<Reply> {
  // Whatever address the server is bound to, the requests go to loopback.
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, {
    method,
    headers: {
      ...(options.body !== undefined || options.raw !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token !== undefined ? { authorization: options.token } : {}),
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : options.raw !== undefined ? { body: options.raw } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** A JSON error reply of this status with a non-empty `errors` list of strings. */
function assertError(r: Reply, status: number, what: string, mentions?: RegExp): void {
  assert.equal(r.status, status, `${what}: status ${r.status}, body ${JSON.stringify(r.body)}`);
  assert.match(r.contentType, /^application\/json/, `${what}: a JSON reply`);
  const errors = r.body.errors;
  assert.ok(Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e === 'string' && e.length > 0), `${what}: { errors: [...] }, got ${JSON.stringify(r.body)}`);
  if (mentions) assert.match((errors as string[]).join('; '), mentions, `${what}: the error says why`);
}

async function awaitSavepoint(server: RestServer, requestId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const r = await send(server, 'GET', `/jobs/${master.jobId}/savepoints/${requestId}`);
    assert.equal(r.status, 200);
    const status = (r.body.status as { id: string }).id;
    if (status === 'COMPLETED') {
      const op = r.body.operation as { location?: string; 'failure-cause'?: unknown };
      assert.ok(op.location, `the savepoint failed: ${JSON.stringify(op)}`);
      return op.location;
    }
    await sleep(25);
  }
  throw new Error('the savepoint did not complete');
}

before(async () => {
  root = makeTempDir('rest-api');
  master = await createJobMaster({ job, config: { 'execution.checkpointing.savepoint-dir': join(root, 'default-savepoints') } });
  result = master.run();
  await master.whenRunning();
  local = await startRestServer({ master, host: '127.0.0.1', port: 0, token: null, log: silentLogger });
  // Listening on every interface is allowed here (it is this machine); requests still go to 127.0.0.1.
  open = await startRestServer({ master, host: '0.0.0.0', port: 0, token: TOKEN, log: silentLogger });
});

after(async () => {
  if (!isTerminal(master.status)) await master.cancel();
  await result;
  await local?.close(0);
  await open?.close(0);
  removeDir(root);
});

describe('REST errors', { timeout: 30_000 }, () => {
  test('a job id that is not this job: 404 with { errors } on every route, and nothing happens', async () => {
    assertError(await send(local, 'GET', `/jobs/${OTHER_JOB}`), 404, 'GET job', new RegExp(OTHER_JOB));
    assertError(await send(local, 'GET', `/jobs/${OTHER_JOB}/checkpoints`), 404, 'GET checkpoints');
    assertError(await send(local, 'POST', `/jobs/${OTHER_JOB}/savepoints`, { body: { 'target-directory': join(root, 'nope') } }), 404, 'POST savepoint');
    assertError(await send(local, 'GET', `/jobs/${OTHER_JOB}/savepoints/abc`), 404, 'GET savepoint status');
    assertError(await send(local, 'POST', `/jobs/${OTHER_JOB}/stop`, { body: { targetDirectory: join(root, 'nope'), drain: true } }), 404, 'POST stop');
    assertError(await send(local, 'PATCH', `/jobs/${OTHER_JOB}?mode=cancel`), 404, 'PATCH cancel');
    assertError(await send(local, 'GET', `/jobs/${master.jobId}/savepoints/not-a-trigger`), 404, 'an unknown trigger id', /trigger/);
    assertError(await send(local, 'GET', '/no/such/route'), 404, 'an unknown route');
    assertError(await send(local, 'GET', `/jobs/${master.jobId}/checkpoints/details/99999`), 404, 'an unknown checkpoint');
    assertError(await send(local, 'GET', `/jobs/${master.jobId}/checkpoints/details/first`), 400, 'a checkpoint id that is not a number');
    // Not a job id at all: the request is refused the same way (a client error, as JSON).
    const malformed = await send(local, 'GET', '/jobs/not-a-job-id');
    assert.ok(malformed.status === 400 || malformed.status === 404, `malformed id: ${malformed.status}`);
    assertError(malformed, malformed.status, 'a malformed job id');
    assert.equal(master.status, 'RUNNING');
    assert.equal(existsSync(join(root, 'nope')), false, 'no savepoint was taken');
  });

  test('bad bodies: 400 with { errors }, and nothing happens', async () => {
    const id = master.jobId;
    const cases: Array<[string, string, { body?: unknown; raw?: string }]> = [
      ['savepoint: unknown property', `/jobs/${id}/savepoints`, { body: { 'target-directory': join(root, 'bad-1'), 'target-dir': 'x' } }],
      ['savepoint: target-directory a number', `/jobs/${id}/savepoints`, { body: { 'target-directory': 5 } }],
      ['savepoint: target-directory empty', `/jobs/${id}/savepoints`, { body: { 'target-directory': '' } }],
      ['savepoint: cancel-job a string', `/jobs/${id}/savepoints`, { body: { 'target-directory': join(root, 'bad-2'), 'cancel-job': 'yes' } }],
      ['savepoint: cancel-job a number', `/jobs/${id}/savepoints`, { body: { 'target-directory': join(root, 'bad-3'), 'cancel-job': 1 } }],
      ['savepoint: an array', `/jobs/${id}/savepoints`, { body: [join(root, 'bad-4')] }],
      ['savepoint: not JSON', `/jobs/${id}/savepoints`, { raw: '{"target-directory": ' }],
      ['stop: unknown property', `/jobs/${id}/stop`, { body: { targetDirectory: join(root, 'bad-5'), drian: true } }],
      ['stop: drain a string', `/jobs/${id}/stop`, { body: { targetDirectory: join(root, 'bad-6'), drain: 'true' } }],
      ['stop: drain a number', `/jobs/${id}/stop`, { body: { targetDirectory: join(root, 'bad-7'), drain: 0 } }],
      ['stop: targetDirectory a boolean', `/jobs/${id}/stop`, { body: { targetDirectory: true } }],
    ];
    for (const [what, path, options] of cases) assertError(await send(local, 'POST', path, options), 400, what);
    assertError(await send(local, 'PATCH', `/jobs/${id}`), 400, 'cancel without mode');
    assertError(await send(local, 'PATCH', `/jobs/${id}?mode=explode`), 400, 'cancel with an unknown mode');
    await sleep(200);
    assert.equal(master.status, 'RUNNING', 'no bad request stopped or cancelled the job');
    const made = readdirSync(root).filter((n) => n.startsWith('bad-') || n === '5' || n === 'true');
    assert.deepEqual(made, [], 'no bad request took a savepoint');
    assert.equal(existsSync(join(process.cwd(), '5')), false, 'a number was not taken for a directory name');
  });

  test('checkpoint ids in paths are numbers: a completed checkpoint is found', async () => {
    let latest: { id: number } | null = null;
    for (let i = 0; i < 200 && !latest; i++) {
      const r = await send(local, 'GET', `/jobs/${master.jobId}/checkpoints`);
      latest = (r.body.latest as { completed: { id: number } | null }).completed;
      if (!latest) await sleep(50);
    }
    assert.ok(latest, 'a checkpoint completed');
    const details = await send(local, 'GET', `/jobs/${master.jobId}/checkpoints/details/${latest.id}`);
    assert.equal(details.status, 200, JSON.stringify(details.body));
    assert.equal(details.body.id, latest.id);
  });

  test('a good request on loopback without a token: 202, and the savepoint completes', async () => {
    const r = await send(local, 'POST', `/jobs/${master.jobId}/savepoints`, { body: { 'target-directory': join(root, 'good') } });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const location = await awaitSavepoint(local, r.body['request-id'] as string);
    assert.ok(location.startsWith(join(root, 'good')), location);
    assert.equal((await readMetadata(location)).metadata.type, 'savepoint');
  });
});

describe('REST beyond loopback', { timeout: 30_000 }, () => {
  test('a server beyond loopback will not start without a token', async () => {
    await assert.rejects(startRestServer({ master, host: '0.0.0.0', port: 0, token: null, log: silentLogger }), /rest\.token/);
  });

  test('reads need no token; mutating calls without the right token get 401 and change nothing', async () => {
    const overview = await send(open, 'GET', '/jobs/overview');
    assert.equal(overview.status, 200);
    const id = master.jobId;
    const target = join(root, 'unauthorized');
    for (const token of [undefined, 'Bearer wrong-token', TOKEN, `Basic ${TOKEN}`, 'Bearer ']) {
      const what = `token ${JSON.stringify(token)}`;
      assertError(await send(open, 'POST', `/jobs/${id}/savepoints`, { body: { 'target-directory': target }, ...(token !== undefined ? { token } : {}) }), 401, `savepoint, ${what}`, /Authorization/);
      assertError(await send(open, 'POST', `/jobs/${id}/stop`, { body: { targetDirectory: target }, ...(token !== undefined ? { token } : {}) }), 401, `stop, ${what}`);
      assertError(await send(open, 'PATCH', `/jobs/${id}?mode=cancel`, token !== undefined ? { token } : {}), 401, `cancel, ${what}`);
    }
    await sleep(200);
    assert.equal(master.status, 'RUNNING');
    assert.equal(existsSync(target), false, 'no savepoint was taken');
  });

  test('with the token: 202, the savepoint completes; then cancel with the token', async () => {
    const auth = `Bearer ${TOKEN}`;
    const r = await send(open, 'POST', `/jobs/${master.jobId}/savepoints`, { body: {}, token: auth });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    const location = await awaitSavepoint(open, r.body['request-id'] as string);
    assert.ok(location.startsWith(join(root, 'default-savepoints')), `the default savepoint directory: ${location}`);
    const cancel = await send(open, 'PATCH', `/jobs/${master.jobId}?mode=cancel`, { token: auth });
    assert.equal(cancel.status, 202);
    assert.equal((await result).status, 'CANCELED');
  });
});
