// What a new user meets first (issue 24): the packed tarball installed into a fresh `npm init -y`
// project that has no @types/node (installed without peer dependencies, so mysql2's optional
// @types/node peer stays out too). The install must not warn EBADENGINE on this Node, `tsc
// --strict` over a job importing weir-stream and its connector entries must be clean (the
// package's public declarations must not need Node's types), and the examples and the MariaDB
// script the README tells users to run must be in the package.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';

const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
let root: string;
let tarball: string;
let project: string;
let installLog: string;

function run(cmd: string, args: readonly string[], cwd: string): SpawnSyncReturns<string> {
  const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  const r = spawnSync(cmd, [...args], { cwd, encoding: 'utf8', timeout: 300_000, env });
  if (r.error) throw r.error;
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  return r;
}

const JOB = `import { defineJob, ValueStateDescriptor, type JobResult } from 'weir-stream';
import { DataGen } from 'weir-stream/connectors/datagen';
import { FileSink } from 'weir-stream/connectors/file';
import { PrintSink } from 'weir-stream/connectors/print';
import * as collection from 'weir-stream/connectors/collection';
import * as collect from 'weir-stream/connectors/collect';
import { MySqlCdcSource, MySqlSink, type ChangeRecord } from 'weir-stream/connectors/mysql';
import { PostgresSink, RecordRefusedError } from 'weir-stream/connectors/postgres';

export const job = defineJob((env, args) => {
  env.fromSource(DataGen.sequence(1, 100), { uid: 'numbers' }).map((n) => String(n * 2)).sinkTo(new FileSink<string>(args.get('output', 'out')), { uid: 'files' });
  const cdc = new MySqlCdcSource({ host: '127.0.0.1', port: 3306, user: 'root', password: '', database: 'test', tables: ['orders'], serverId: '5400-5415' });
  env.fromSource(cdc, { uid: 'orders' }).map((r: ChangeRecord) => r.op).sinkTo(new PrintSink<string>(), { uid: 'print' });
  const mirror = new PostgresSink<ChangeRecord>({ connection: { host: '127.0.0.1', user: 'postgres', database: 'test' }, table: 'orders', mode: 'changelog', key: ['id'] });
  env.fromSource(cdc, { uid: 'orders-again' }).sinkTo(mirror, { uid: 'mirror' });
  const copy = new MySqlSink<ChangeRecord>({ connection: { host: '127.0.0.1', port: 3306, user: 'root', password: '', database: 'copy' }, table: 'orders', mode: 'changelog', key: ['id'] });
  env.fromSource(cdc, { uid: 'orders-copied' }).sinkTo(copy, { uid: 'copy' });
});
export const state = new ValueStateDescriptor<number>('n');
export type Used = [JobResult, typeof collection, typeof collect, RecordRefusedError['record']];
`;

describe('a fresh project without @types/node', { timeout: 600_000 }, () => {
  before(() => {
    root = makeTempDir('fresh-project');
    const packed = run('npm', ['pack', '--pack-destination', root, '--silent'], REPO_ROOT).stdout;
    tarball = join(root, packed.trim().split('\n').at(-1)!);
    project = join(root, 'app');
    mkdirSync(project);
    run('npm', ['init', '-y'], project);
    const r = run('npm', ['install', '--prefer-offline', '--legacy-peer-deps', tarball], project);
    installLog = `${r.stderr}\n${r.stdout}`;
  });
  after(() => removeDir(root));

  test('installing the tarball warns about no engine on this Node', () => {
    assert.doesNotMatch(installLog, /EBADENGINE/, `npm install on Node ${process.version} warned:\n${installLog}`);
  });

  test('tsc --strict over a job importing weir-stream and its connectors is clean without @types/node', () => {
    assert.ok(!existsSync(join(project, 'node_modules', '@types', 'node')), 'the project has no @types/node');
    writeFileSync(join(project, 'job.ts'), JOB);
    const config = { compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: false }, files: ['job.ts'] };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(config));
    run(process.execPath, [TSC, '--strict', '--noEmit', '-p', 'tsconfig.json'], project);
  });

  test('the package holds the examples and the MariaDB and PostgreSQL scripts the README names, and says where they are', () => {
    const installed = join(project, 'node_modules', 'weir-stream');
    const readme = readFileSync(join(installed, 'README.md'), 'utf8');
    const named = [...new Set(readme.match(/\b(?:examples\/[\w-]+\.ts|scripts\/(?:mariadb|postgres)-for-examples\.sh)\b/g))];
    assert.ok(named.includes('examples/wordcount.ts') && named.includes('examples/cdc-orders.ts') && named.includes('scripts/mariadb-for-examples.sh') && named.includes('examples/orders-to-postgres.ts') && named.includes('scripts/postgres-for-examples.sh'), `the README names ${named.join(', ')}`);
    for (const file of named) assert.ok(existsSync(join(installed, file)), `${file}, named in the README, is in the package`);
    assert.match(readme, /node_modules\/weir-stream\/examples/, 'the README says where an installed package keeps them');
  });
});
