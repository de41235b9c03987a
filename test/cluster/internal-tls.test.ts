// Internal TLS (security.ssl.internal.*): the TaskManagers' RPC (TLS inside the HTTP upgrade) and
// the data connections between TaskManagers are mutually authenticated by the cluster's own
// authority. A job runs exactly-once over it; a TaskManager with a certificate of another
// authority is refused with the reason, and so is one that speaks no TLS, logged with its address.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir } from '../fixtures/recovery-helpers.ts';
import { wordCounts, WORDCOUNT } from '../fixtures/savepoint-helpers.ts';
import { spawnWeir } from '../fixtures/weir-process.ts';
import { TestCluster } from '../fixtures/weir-cluster.ts';

let root: string;
let cluster: TestCluster;
before(() => {
  root = makeTempDir('internal-tls');
});
after(() => {
  cluster?.killAll();
  removeDir(root);
});

function openssl(...args: string[]): void {
  const r = spawnSync('openssl', args, { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, `openssl ${args.join(' ')}: ${r.stderr}`);
}

/** An authority and one certificate it signed, as PEM files under root: `<name>-ca.pem`, `<name>.key`, `<name>.pem`. */
function authority(name: string): { ca: string; key: string; cert: string } {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', `${name}-ca.key`, '-out', `${name}-ca.pem`, '-days', '1', '-subj', `/CN=${name} authority`);
  openssl('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name} node`);
  openssl('x509', '-req', '-in', `${name}.csr`, '-CA', `${name}-ca.pem`, '-CAkey', `${name}-ca.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '1');
  return { ca: join(root, `${name}-ca.pem`), key: join(root, `${name}.key`), cert: join(root, `${name}.pem`) };
}

const tlsDefines = (a: { ca: string; key: string; cert: string }) => ({ 'security.ssl.internal.enabled': 'true', 'security.ssl.internal.key': a.key, 'security.ssl.internal.cert': a.cert, 'security.ssl.internal.trust': a.ca });

test('internal TLS: RPC and data between TaskManagers mutually authenticated; strangers refused', { timeout: 150_000 }, async () => {
  const ours = authority('cluster');
  const theirs = authority('stranger');
  cluster = new TestCluster({ root, defines: { 'heartbeat.interval': '1 s', 'heartbeat.timeout': '5 s', ...tlsDefines(ours) } });
  const jm = await cluster.startJobManager();
  await cluster.startTaskManager({ id: 'tm-a' });
  await cluster.startTaskManager({ id: 'tm-b' });

  const output = join(root, 'out');
  const run = spawnWeir(['run', WORDCOUNT, '-m', cluster.address, '-p', '2', '--', '--words', '30000', '--seed', '4', '--output', output, '--checkpoint-interval', '100'], cluster.env);
  assert.equal(await run.finished(90_000), 0, `${run.tail()}\n--- JobManager:\n${jm.tail()}`);
  assert.equal(diffSortedLines(readCommittedLines(output), expectedRunningCounts(wordCounts(4, 30_000))), undefined);

  // A certificate another authority signed: the JobManager does not trust it, the TaskManager ends with the reason.
  const stranger = spawnWeir(['taskmanager', '--jobmanager', cluster.address, '--id', 'tm-x', '--work-dir', join(root, 'x'), ...Object.entries(tlsDefines(theirs)).flatMap(([k, v]) => ['-D', `${k}=${v}`])], cluster.env, { cwd: root });
  assert.equal(await stranger.finished(30_000), 2, stranger.tail());
  assert.match(stranger.lines.join('\n'), /refused this TaskManager \(tls\): TLS: /);
  // No TLS at all: the JobManager refuses what is not a TLS handshake, naming the address.
  const plain = spawnWeir(['taskmanager', '--jobmanager', cluster.address, '--id', 'tm-plain', '--work-dir', join(root, 'plain')], cluster.env, { cwd: root });
  try {
    await jm.waitFor('the refusal of a TaskManager without TLS', (p) => p.log.filter((l) => typeof l.msg === 'string' && /^refused the connection from 127\.0\.0\.1:\d+ \(tls\)/.test(l.msg)).length >= 2, 30_000);
  } finally {
    plain.kill();
  }
  assert.ok(!jm.log.some((l) => typeof l.msg === 'string' && /^TaskManager tm-(x|plain) registered/.test(l.msg)), 'neither registered');
});
