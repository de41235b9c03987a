// The package as a user gets it: `npm pack`, the tarball installed into a fresh project of its
// own (npm init -y: "type": "commonjs"), and there a plain .mjs program, a TypeScript job run by
// `weir run` (in-thread and on worker threads), type checks of weir's declarations under
// moduleResolution nodenext, bundler and node10, the `weir init` starter with its own test, and
// `weir --version`. Nothing of the repository is on the paths these use.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffSortedLines, expectedRunningCounts, makeTempDir, readCommittedLines, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';
import { wordCounts } from '../fixtures/savepoint-helpers.ts';

const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const TYPES = join(REPO_ROOT, 'node_modules', '@types');
let root: string;
let tarball: string;
let project: string;

function run(cmd: string, args: readonly string[], cwd: string, timeout = 180_000): SpawnSyncReturns<string> {
  // NODE_TEST_CONTEXT would make the starter's own `node --test` report to this runner, not print.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const r = spawnSync(cmd, [...args], { cwd, encoding: 'utf8', timeout, env: { ...env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' } });
  if (r.error) throw r.error;
  return r;
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  return r.stdout;
}

/** A fresh project with the tarball installed. */
function projectWithPackage(name: string): string {
  const dir = join(root, name);
  ok(run('npm', ['init', '-y'], (spawnSync('mkdir', ['-p', dir]), dir)), 'npm init');
  ok(run('npm', ['install', '--prefer-offline', tarball], dir), 'npm install of the tarball');
  return dir;
}

const JOB = `import { defineJob } from 'weir-stream';
import { DataGen } from 'weir-stream/connectors/datagen';
import { FileSink } from 'weir-stream/connectors/file';

interface Counted { word: string; count: number }
export default defineJob((env, args) => {
  env.enableCheckpointing(200);
  env.fromSource(DataGen.words({ seed: 3, count: args.getNumber('words', 20000) }), { uid: 'source' })
    .map((word: string): Counted => ({ word, count: 1 }))
    .keyBy((r) => r.word)
    .sum('count', { uid: 'counts' })
    .map((r) => \`\${r.word}\\t\${r.count}\`)
    .sinkTo(new FileSink<string>(args.get('output', 'out')), { uid: 'sink' });
});
`;

const APP = `import { executeJob, defineJob } from 'weir-stream';
import { DataGen } from 'weir-stream/connectors/datagen';
import { PrintSink } from 'weir-stream/connectors/print';
let sum = 0;
const job = defineJob((env) => {
  env.fromSource(DataGen.sequence(1, 1000) /* 1..1000, as Flink's fromSequence */, { uid: 'numbers' }).map((n) => n * 2).sinkTo(new PrintSink({ write: (t) => { for (const line of t.split('\\n')) if (line) sum += Number(line); } }), { uid: 'sink' });
});
const r = await executeJob({ job });
console.log(r.status, sum);
`;

const TYPES_CHECK = `import { defineJob, ValueStateDescriptor, type JobResult, type KeyedProcessFunction, type TwoPhaseCommittingSink } from 'weir-stream';
import { FileSink } from 'weir-stream/connectors/file';
import type { ChangeRecord } from 'weir-stream/connectors/mysql';

export const job = defineJob((env) => {
  env.fromSource({ boundedness: 'bounded', createSplits: () => [], createReader: () => { throw new Error('unused'); } }, { uid: 's' }).sinkTo(new FileSink<string>('out'));
});
export const state = new ValueStateDescriptor<number>('n');
export type Types = [JobResult, KeyedProcessFunction<string, string, string>, TwoPhaseCommittingSink<string, string>, ChangeRecord];
`;

describe('the npm package', { timeout: 600_000 }, () => {
  before(() => {
    root = makeTempDir('package');
    const out = ok(run('npm', ['pack', '--pack-destination', root, '--silent'], REPO_ROOT, 300_000), 'npm pack');
    tarball = join(root, out.trim().split('\n').at(-1)!);
    project = projectWithPackage('app');
  });
  after(() => removeDir(root));

  test('the tarball holds the compiled package, the dashboard and the command, and no tests or sources', () => {
    const files = ok(run('tar', ['tzf', tarball], root), 'tar').split('\n').filter(Boolean);
    for (const f of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/cli/main.js', 'package/dist/worker/slot-executor-thread.js', 'package/dist/cluster/engine-imports.mjs', 'package/dist/cluster/slot-bootstrap.mjs', 'package/web/index.html', 'package/bin/weir.mjs', 'package/LICENSE', 'package/README.md', 'package/schemas/pipeline.schema.json']) {
      assert.ok(files.includes(f), `${f} is in the tarball`);
    }
    // The examples and the MariaDB and PostgreSQL scripts the README runs are shipped (issue 24; the JetStream example, issue 28; the Kafka example, issue 32; the pipeline example, issue 33), and the Nexmark queries it points to (join-queries.ts is imported by queries.ts); nothing else of examples/ or scripts/.
    const shipped = new Set(['package/examples/wordcount.ts', 'package/examples/cdc-orders.ts', 'package/examples/orders-to-postgres.ts', 'package/examples/jetstream-counts.ts', 'package/examples/kafka-wordcount.ts', 'package/examples/nexmark/nexmark.ts', 'package/examples/nexmark/queries.ts', 'package/examples/nexmark/join-queries.ts', 'package/examples/pipelines/mariadb-to-postgres.yaml', 'package/scripts/mariadb-for-examples.sh', 'package/scripts/postgres-for-examples.sh']);
    for (const f of files.filter((f) => !shipped.has(f))) assert.doesNotMatch(f, /^package\/(src|test|bench|scripts|examples)\//, `${f} does not belong in the package`);
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'weir-stream', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    assert.ok(!('tsx' in pkg.dependencies), 'tsx is needed only to develop weir itself');
  });

  test('a plain .mjs program runs a job with node', () => {
    assert.equal(ok(run(process.execPath, ['app.mjs'], (writeFileSync(join(project, 'app.mjs'), APP), project)), 'node app.mjs').trim(), `FINISHED ${2 * ((1000 * 1001) / 2)}`);
  });

  test('weir run loads a TypeScript job in a "type": "commonjs" project, in-thread, on worker threads and on TaskManager processes, exactly-once', () => {
    writeFileSync(join(project, 'job.ts'), JOB);
    assert.equal(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).type, 'commonjs');
    const expected = expectedRunningCounts(wordCounts(3, 20_000));
    // The last: a local cluster, whose TaskManager processes load the bundle with the installed package's engine.
    for (const [out, extra] of [['out1', []], ['out2', ['-p', '2', '--task-managers', '2']], ['out3', ['-p', '2', '--task-managers', '2', '--processes']]] as const) {
      ok(run('npx', ['weir', 'run', 'job.ts', '-D', 'rest.port=0', ...extra, '--', '--output', out], project), `weir run ${extra.join(' ')}`);
      assert.equal(diffSortedLines(readCommittedLines(join(project, out)), expected), undefined, `${out} holds exactly the running counts`);
    }
    assert.match(ok(run('npx', ['weir', '--version'], project), 'weir --version'), /^\d+\.\d+\.\d+/);
  });

  test("tsc accepts weir's declarations with moduleResolution nodenext, bundler and node10", () => {
    writeFileSync(join(project, 'types-check.ts'), TYPES_CHECK);
    for (const [resolution, module] of [['nodenext', 'nodenext'], ['bundler', 'esnext'], ['node10', 'commonjs']]) {
      const config = { compilerOptions: { target: 'es2022', module, moduleResolution: resolution, strict: true, noEmit: true, skipLibCheck: false, typeRoots: [TYPES], types: ['node'] }, files: ['types-check.ts'] };
      writeFileSync(join(project, `tsconfig.${resolution}.json`), JSON.stringify(config));
      ok(run(process.execPath, [TSC, '-p', `tsconfig.${resolution}.json`], project), `tsc with moduleResolution ${resolution}`);
    }
  });

  test('weir init writes a project whose own test passes', () => {
    ok(run('npx', ['weir', 'init', 'starter'], project), 'weir init');
    const starter = join(project, 'starter');
    assert.deepEqual(readdirSync(starter).sort(), ['.gitignore', 'job.ts', 'package.json', 'test', 'tsconfig.json']);
    ok(run('npm', ['install', '--prefer-offline', tarball], starter), 'npm install in the starter');
    assert.match(ok(run('npm', ['test'], starter), 'the starter\'s npm test'), /pass 1/);
  });

  test('a job of the installed package that throws while being built: weir run names the line in the user\'s module', () => {
    const module = join(project, 'throws.ts');
    writeFileSync(module, "import { defineJob } from 'weir-stream';\n\nexport default defineJob(() => {\n  throw new RangeError('no window given');\n});\n");
    const r = run('npx', ['weir', 'run', 'throws.ts', '-D', 'rest.port=0'], project);
    assert.equal(r.status, 2, r.stderr);
    assert.ok(r.stderr.includes(`job module ${module}: threw while building the job: RangeError: no window given (at ${module}:4:`), r.stderr);
  });
});
