// The record type flows through the API as a TypeScript user expects (test/api/types/type-flow.ts):
// tsc --strict over that file must be clean: its expected types hold and every @ts-expect-error
// line is an error. A second file, each of whose lines must fail, checks that the check can fail.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';

const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const TYPES = join(REPO_ROOT, 'test', 'api', 'types', 'type-flow.ts');

let dir: string;
before(() => {
  dir = makeTempDir('type-flow');
});
after(() => removeDir(dir));

function tsc(file: string): { code: number | null; output: string } {
  const config = {
    compilerOptions: {
      target: 'es2022',
      module: 'esnext',
      moduleResolution: 'bundler',
      customConditions: ['weir-source'],
      allowImportingTsExtensions: true,
      noEmit: true,
      strict: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(REPO_ROOT, 'node_modules', '@types')],
      lib: ['es2023', 'es2024.sharedmemory'],
    },
    files: [file],
  };
  const project = join(dir, `tsconfig-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(project, JSON.stringify(config));
  const r = spawnSync(process.execPath, [TSC, '-p', project], { cwd: REPO_ROOT, encoding: 'utf8' });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

test('tsc --strict: the expected types of type-flow.ts hold and its @ts-expect-error lines are errors', { timeout: 120_000 }, () => {
  const r = tsc(TYPES);
  assert.equal(r.code, 0, r.output);
});

test('the check fails where types do not flow: a wrong expected type, an unused @ts-expect-error', { timeout: 120_000 }, () => {
  const wrong = join(dir, 'wrong.ts');
  writeFileSync(
    wrong,
    `import type { DataStream } from ${JSON.stringify(join(REPO_ROOT, 'src', 'index.ts'))};
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends <X>() => X extends B ? 1 : 2 ? true : false;
declare function expectType<T extends true>(ok: T): void;
declare const s: DataStream<string | null>;
expectType<Equal<typeof s, DataStream<string>>>(true);
// @ts-expect-error
s.filter((x): x is string => x !== null);
`,
  );
  const r = tsc(wrong);
  assert.notEqual(r.code, 0);
  assert.match(r.output, /wrong\.ts\(5,/, 'the wrong expected type is reported');
  assert.match(r.output, /wrong\.ts\(6,.*Unused '@ts-expect-error'/, 'the unused @ts-expect-error is reported');
});
