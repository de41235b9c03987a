// The JobManager's REST API around savepoints: unknown jobs get 404, bad bodies 400 (both as JSON
// `{ errors }`) and change nothing; without a token only loopback Host names are answered and
// cross-site changes refused; with one, mutating calls need the bearer token, and reads too where
// rest.token-required-for-reads says so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createJobMaster, defineJob, type JobMaster, type JobResult } from '../../src/index.ts';
import { DataGen } from '../../src/connectors/datagen/index.ts';
import { readMetadata } from '../../src/checkpoint/checkpoint-metadata.ts';
import { isTerminal } from '../../src/coordinator/job-status.ts';
import { silentLogger } from '../../src/log/logger.ts';
import { startRestServer, type RestServer } from '../../src/rest/rest-server.ts';
import type { CheckpointsOverviewView, OperationStatusView } from '../../src/rest/rest-views.ts';
import { DiscardSink } from '../fixtures/helpers.ts';
import { makeTempDir, removeDir, sleep } from '../fixtures/recovery-helpers.ts';
import { SHUTDOWN } from '../../src/lifecycle/service.ts';

const OTHER_JOB = '0123456789abcdef0123456789abcdef';
const TOKEN = 'a-long-random-token-for-the-test';

let root: string;
let master: JobMaster;
let result: Promise<JobResult>;
let local: RestServer;
/** Beyond loopback with a token; reads need it too (the default there). */
let open: RestServer;
/** Beyond loopback with a token; rest.token-required-for-reads false. */
let openReads: RestServer;
/** On loopback with a token; reads free (the default there). */
let localToken: RestServer;
/** On loopback with a token; rest.token-required-for-reads true. */
let localTokenReads: RestServer;

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

/** A regular expression matching the text as it is. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A JSON error reply of this status with a non-empty `errors` list of strings. */
function assertError(r: Reply, status: number, what: string, mentions?: RegExp): void {
  assert.equal(r.status, status, `${what}: status ${r.status}, body ${JSON.stringify(r.body)}`);
  assert.match(r.contentType, /^application\/json/, `${what}: a JSON reply`);
  const errors = r.body.errors;
  assert.ok(Array.isArray(errors) && errors.length > 0 && errors.every((e) => typeof e === 'string' && e.length > 0), `${what}: { errors: [...] }, got ${JSON.stringify(r.body)}`);
  if (mentions) assert.match((errors as string[]).join('; '), mentions, `${what}: the error says why`);
}

/**
 * A request with headers of our choosing (fetch will not set Host): addressed to 127.0.0.1 at the
 * server's port, whatever Host and Origin say.
 */
function sendWith(server: RestServer, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, method, path, headers: { ...headers, ...(payload !== undefined ? { 'content-type': 'application/json' } : {}) }, timeout: 10_000 },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const contentType = res.headers['content-type'] ?? '';
          const json = contentType.startsWith('application/json') && text ? (JSON.parse(text) as Record<string, unknown>) : {};
          resolve({ status: res.statusCode ?? 0, contentType, body: json });
        });
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer`)));
    req.end(payload);
  });
}

/** A request written by hand, so that it can carry what fetch and http.request will not: several Host headers. */
function sendRaw(server: RestServer, head: string, body = ''): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port });
    let text = '';
    socket.setEncoding('utf8');
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('end', () => {
      const [headers = '', payload = ''] = text.split('\r\n\r\n', 2);
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1] ?? 0);
      const contentType = /^content-type: *(.*)$/im.exec(headers)?.[1]?.trim() ?? '';
      resolve({ status, contentType, body: contentType.startsWith('application/json') && payload ? (JSON.parse(payload) as Record<string, unknown>) : {} });
    });
    const length = body ? `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` : '';
    socket.end(`${head}${length}connection: close\r\n\r\n${body}`);
  });
}

async function awaitSavepoint(server: RestServer, requestId: string, token?: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const r = await send(server, 'GET', `/jobs/${master.jobId}/savepoints/${requestId}`, token !== undefined ? { token } : {});
    assert.equal(r.status, 200);
    const body = r.body as unknown as OperationStatusView;
    if (body.status.id === 'COMPLETED') {
      const op = body.operation;
      assert.ok(op?.location, `the savepoint failed: ${JSON.stringify(op)}`);
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
  openReads = await startRestServer({ master, host: '0.0.0.0', port: 0, token: TOKEN, tokenRequiredForReads: false, log: silentLogger });
  localToken = await startRestServer({ master, host: '127.0.0.1', port: 0, token: TOKEN, log: silentLogger });
  localTokenReads = await startRestServer({ master, host: '127.0.0.1', port: 0, token: TOKEN, tokenRequiredForReads: true, log: silentLogger });
});

after(async () => {
  if (!isTerminal(master.status)) await master.cancel();
  await result;
  for (const server of [local, open, openReads, localToken, localTokenReads]) await server?.stop(SHUTDOWN, 0);
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

  test('a relative savepoint directory is refused with 400 and the reason; nothing is written in the working directory', async () => {
    const id = master.jobId;
    const relative = `relative-savepoint-${process.pid}`;
    for (const dir of [relative, `./${relative}`, `../${relative}`]) {
      const why = new RegExp(`'${literal(dir)}' is relative: it would be resolved against the JobManager's working directory \\(${literal(process.cwd())}\\)`);
      assertError(await send(local, 'POST', `/jobs/${id}/savepoints`, { body: { 'target-directory': dir } }), 400, `savepoint to ${dir}`, new RegExp(`target-directory ${why.source}`));
      assertError(await send(local, 'POST', `/jobs/${id}/stop`, { body: { targetDirectory: dir, drain: false } }), 400, `stop to ${dir}`, new RegExp(`targetDirectory ${why.source}`));
      assertError(await send(local, 'POST', `/v1/jobs/${id}/savepoints`, { body: { 'target-directory': dir, 'cancel-job': true } }), 400, `savepoint and cancel to ${dir} at /v1`);
    }
    await sleep(200);
    assert.equal(master.status, 'RUNNING', 'the stop and the cancel were not done');
    for (const dir of [relative, `../${relative}`]) assert.equal(existsSync(join(process.cwd(), dir)), false, `nothing at ${dir}`);
  });

  test('checkpoint ids in paths are numbers: a completed checkpoint is found', async () => {
    let latest: { id: number } | null = null;
    for (let i = 0; i < 200 && !latest; i++) {
      const r = await send(local, 'GET', `/jobs/${master.jobId}/checkpoints`);
      latest = (r.body as unknown as CheckpointsOverviewView).latest.completed;
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

describe('REST without a token: loopback Host names only, no cross-site changes', { timeout: 30_000 }, () => {
  const FOREIGN = 'rebind.attacker.example';

  test('a foreign Host is refused with 403 on every route (dashboard files and 404s too), and the job is not cancelled', async () => {
    const id = master.jobId;
    const routes: Array<[string, string]> = [
      ['GET', '/jobs'],
      ['GET', `/jobs/${id}`],
      ['GET', '/metrics'],
      ['GET', '/'],
      ['GET', '/web/app.js'],
      ['GET', '/no/such/route'],
      ['POST', `/jobs/${id}/savepoints`],
      ['PATCH', `/jobs/${id}?mode=cancel`],
    ];
    for (const host of [FOREIGN, `${FOREIGN}:${local.port}`, `127.0.0.1.${FOREIGN}`, 'localhost.', '127.0.0.2']) {
      for (const [method, path] of routes) {
        const body = method === 'POST' ? { 'target-directory': join(root, 'rebound') } : undefined;
        const r = await sendWith(local, method, path, { host }, body);
        assertError(r, 403, `${method} ${path} with Host ${host}`, new RegExp(`Host '${literal(host)}' refused.*${literal('127.0.0.1, localhost or [::1]')}.*${literal('setting rest.token lifts')}`));
      }
    }
    // The job runs on, as its own REST API says when asked properly.
    const details = await sendWith(local, 'GET', `/jobs/${id}`, { host: `127.0.0.1:${local.port}` });
    assert.equal(details.status, 200);
    assert.equal(details.body.state, 'RUNNING');
    assert.equal(master.status, 'RUNNING');
    assert.equal(existsSync(join(root, 'rebound')), false, 'no savepoint was taken');
  });

  test('loopback Host names are answered: 127.0.0.1, localhost and [::1], with or without the port', async () => {
    const port = local.port;
    for (const host of ['127.0.0.1', `127.0.0.1:${port}`, 'localhost', `localhost:${port}`, `LOCALHOST:${port}`, '[::1]', `[::1]:${port}`]) {
      const r = await sendWith(local, 'GET', '/jobs', { host });
      assert.equal(r.status, 200, `Host ${host}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body.jobs, [{ id: master.jobId, status: 'RUNNING' }]);
    }
  });

  test('a mutating call from a foreign Origin is refused with 403 and changes nothing; reads and same-origin calls are answered', async () => {
    const id = master.jobId;
    const host = `127.0.0.1:${local.port}`;
    const target = join(root, 'cross-site');
    // Other sites, another page on this machine (another port or name than the request's Host), and sandboxed frames.
    for (const origin of ['https://evil.example', `http://${FOREIGN}:${local.port}`, 'http://localhost:3000', `http://localhost:${local.port}`, 'null']) {
      const what = `Origin ${origin}`;
      assertError(await sendWith(local, 'POST', `/jobs/${id}/savepoints`, { host, origin }, { 'target-directory': target }), 403, `savepoint, ${what}`, /cross-site request.*rest\.token lifts/);
      assertError(await sendWith(local, 'POST', `/jobs/${id}/stop`, { host, origin }, { targetDirectory: target }), 403, `stop, ${what}`);
      assertError(await sendWith(local, 'PATCH', `/jobs/${id}?mode=cancel`, { host, origin }), 403, `cancel, ${what}`, new RegExp(`Origin '${literal(origin)}' refused`));
    }
    assert.equal(master.status, 'RUNNING');
    assert.equal(existsSync(target), false, 'no savepoint was taken');
    // A read with a foreign Origin is answered: the browser does not let that page see the answer.
    assert.equal((await sendWith(local, 'GET', '/jobs', { host, origin: 'https://evil.example' })).status, 200);
    // The dashboard's own calls carry its origin: accepted.
    const own = await sendWith(local, 'POST', `/jobs/${id}/savepoints`, { host, origin: `http://${host}` }, { 'target-directory': join(root, 'same-origin') });
    assert.equal(own.status, 202, JSON.stringify(own.body));
    await awaitSavepoint(local, own.body['request-id'] as string);
  });
});

describe('REST: one Host header', { timeout: 30_000 }, () => {
  test('a request with two Host headers is refused with 400 on every server, whichever comes first, and changes nothing', async () => {
    const id = master.jobId;
    const target = join(root, 'two-hosts');
    const body = JSON.stringify({ 'target-directory': target });
    for (const server of [local, localToken, openReads]) {
      const own = `127.0.0.1:${server.port}`;
      for (const [first, second] of [[own, 'rebind.attacker.example'], ['rebind.attacker.example', own], [own, own]]) {
        const hosts = `Host: ${first}\r\nHost: ${second}\r\n`;
        const what = `${server.url}, Host ${first} then ${second}`;
        assertError(await sendRaw(server, `GET /jobs HTTP/1.1\r\n${hosts}`), 400, `GET, ${what}`, new RegExp(`GET /jobs refused: it carries 2 Host headers \\('${literal(first)}', '${literal(second)}'\\)`));
        const auth = server === local ? '' : `Authorization: Bearer ${TOKEN}\r\n`;
        assertError(await sendRaw(server, `POST /jobs/${id}/savepoints HTTP/1.1\r\n${hosts}${auth}`, body), 400, `POST, ${what}`, /2 Host headers/);
      }
      // One Host header, as every client sends: answered.
      assert.equal((await sendRaw(server, `GET /jobs HTTP/1.1\r\nHost: ${own}\r\n`)).status, 200, `${server.url}, one Host`);
    }
    await sleep(200);
    assert.equal(existsSync(target), false, 'no savepoint was taken');
  });
});

describe('REST beyond loopback', { timeout: 30_000 }, () => {
  test('a server beyond loopback will not start without a token, nor one whose reads need a token it does not have', async () => {
    await assert.rejects(startRestServer({ master, host: '0.0.0.0', port: 0, token: null, log: silentLogger }), /rest\.token/);
    await assert.rejects(startRestServer({ master, host: '127.0.0.1', port: 0, token: null, tokenRequiredForReads: true, log: silentLogger }), /rest\.token-required-for-reads/);
  });

  test('with a token, any Host is answered (the token is the check)', async () => {
    const r = await sendWith(openReads, 'GET', '/jobs', { host: 'weir.example.com:8081' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  test('rest.token-required-for-reads on (the default beyond loopback, or forced on loopback): reads need the token, the dashboard files do not', async () => {
    const auth = `Bearer ${TOKEN}`;
    for (const server of [open, localTokenReads]) {
      for (const path of ['/overview', '/jobs/overview', `/jobs/${master.jobId}`, `/jobs/${master.jobId}/checkpoints`, '/metrics']) {
        for (const token of [undefined, 'Bearer wrong-token', TOKEN]) {
          assertError(await send(server, 'GET', path, token !== undefined ? { token } : {}), 401, `GET ${path}, token ${JSON.stringify(token)}`, /Authorization: Bearer <rest\.token>.*rest\.token-required-for-reads/);
        }
        const ok = await sendWith(server, 'GET', path, { host: `127.0.0.1:${server.port}`, authorization: auth });
        assert.equal(ok.status, 200, `GET ${path} with the token`);
      }
      for (const path of ['/', '/web/app.js', '/web/api.js']) {
        const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
        assert.equal(res.status, 200, `${path}: the dashboard loads without the token (and then asks for it)`);
      }
    }
  });

  test('rest.token-required-for-reads off (explicitly, or by default on loopback): reads need no token, changes do', async () => {
    for (const server of [openReads, localToken]) {
      const overview = await send(server, 'GET', '/jobs/overview');
      assert.equal(overview.status, 200, JSON.stringify(overview.body));
      assertError(await send(server, 'PATCH', `/jobs/${master.jobId}?mode=cancel`), 401, 'cancel without the token', /PATCH .* needs Authorization: Bearer <rest\.token>/);
    }
    assert.equal(master.status, 'RUNNING');
  });

  test('mutating calls without the right token get 401 and change nothing', async () => {
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
    const location = await awaitSavepoint(open, r.body['request-id'] as string, auth);
    assert.ok(location.startsWith(join(root, 'default-savepoints')), `the default savepoint directory: ${location}`);
    const cancel = await send(open, 'PATCH', `/jobs/${master.jobId}?mode=cancel`, { token: auth });
    assert.equal(cancel.status, 202);
    assert.equal((await result).status, 'CANCELED');
  });
});
