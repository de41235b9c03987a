import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { PACKAGE_VERSION } from './package-version.ts';
import { UsageError } from './run-command.ts';

/**
 * `weir init DIR` (or `npx weir-stream init DIR`): a small project to start from: a word count
 * job with exactly-once file output, its TypeScript settings, scripts, and a test that runs the
 * job with and without injected failures (`weir verify`) and expects the same output.
 */
export function initCommand(dir: string, o: { force?: boolean }): number {
  const root = resolve(dir);
  if (existsSync(root) && readdirSync(root).length > 0 && !o.force) throw new UsageError(`${root} is not empty (use --force to write into it anyway)`);
  mkdirSync(join(root, 'test'), { recursive: true });
  const files = templates(basename(root).toLowerCase().replace(/[^a-z0-9-]/g, '-') || 'weir-job');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  process.stdout.write(
    [`Wrote a weir project to ${root}:`, ...Object.keys(files).map((f) => `  ${f}`), '', 'Next:', `  cd ${dir}`, '  npm install', '  npm start      # runs job.ts', '  npm test       # runs it with injected failures and compares the output', ''].join('\n'),
  );
  return 0;
}

function templates(name: string): Record<string, string> {
  return {
    'package.json': JSON.stringify(
      {
        name,
        private: true,
        type: 'module',
        scripts: { start: 'weir run job.ts -- --output out', test: 'node --test', typecheck: 'tsc --noEmit' },
        dependencies: { 'weir-stream': `^${PACKAGE_VERSION}` },
        devDependencies: { '@types/node': '^20.19.0', typescript: '^5.9.0' },
      },
      null,
      2,
    ) + '\n',
    'tsconfig.json': JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'] }, include: ['*.ts'] }, null, 2) + '\n',
    'job.ts': JOB,
    'test/job.test.mjs': TEST,
    '.gitignore': 'node_modules/\nout/\n',
  };
}

const JOB = `// A running word count: words -> keyBy -> count -> files, exactly-once with checkpoints.
//   npm start                      weir run job.ts -- --output out
//   weir run job.ts -p 2 --task-managers 2 -- --output out --words 1000000
import { defineJob } from 'weir-stream';
import { DataGen } from 'weir-stream/connectors/datagen';
import { FileSink } from 'weir-stream/connectors/file';

export default defineJob((env, args) => {
  env.setJobName('word count');
  env.enableCheckpointing({ interval: 500, mode: 'exactly-once' });
  env
    .fromSource(DataGen.words({ seed: 7, count: args.getNumber('words', 100_000) }), { name: 'Source: words', uid: 'source' })
    .map((word: string) => ({ word, count: 1 }), { name: 'One' })
    .keyBy((r) => r.word)
    .sum('count', { name: 'Count', uid: 'counts' })
    .map((r) => \`\${r.word}\\t\${r.count}\`, { name: 'Format' })
    .sinkTo(new FileSink<string>(args.get('output', 'out')), { name: 'Sink: files', uid: 'sink' });
});
`;

const TEST = `// The job with injected failures commits exactly what it commits without them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

test('exactly-once through injected failures', () => {
  const r = spawnSync('npx', ['weir', 'verify', 'job.ts', '--failures', '2', '--', '--words', '20000', '--output', 'out'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /exactly-once: verified/);
});
`;
