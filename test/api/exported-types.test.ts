// Every type that a public function takes or returns is exported from the entry point that
// exports the function (issue 30, item 7): checked with the TypeScript compiler over each entry
// point of package.json's `exports` (test/fixtures/exported-types-audit.ts says what is followed).
// Members marked `@internal` (the API's plumbing: constructors users never call, the JobMaster's
// coordinator) are not part of the surface. A small package with a gap shows that the check finds one.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { auditExportedTypes, entryPoints } from '../fixtures/exported-types-audit.ts';
import { makeTempDir, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';

let dir: string;
before(() => {
  dir = makeTempDir('exported-types');
});
after(() => removeDir(dir));

test('every entry point exports the types its functions and classes take and return', { timeout: 180_000 }, () => {
  const entries = entryPoints(REPO_ROOT);
  assert.ok(entries.size >= 9, `entry points: ${[...entries.keys()].join(', ')}`);
  const missing = auditExportedTypes(REPO_ROOT, entries);
  assert.deepEqual(
    missing.map((m) => `${m.entry}: ${m.type} <- ${m.usedBy}`),
    [],
  );
});

test('the check finds a type that a function returns but its entry point does not export', () => {
  mkdirSync(join(dir, 'src', 'api'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'gap', type: 'module', exports: { '.': { 'weir-source': './src/index.ts' }, './sub': { 'weir-source': './src/sub.ts' } } }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'es2022', module: 'esnext', moduleResolution: 'bundler', allowImportingTsExtensions: true, noEmit: true, strict: true, types: [] }, include: ['src'] }));
  writeFileSync(
    join(dir, 'src', 'api', 'shapes.ts'),
    'export interface Options { readonly inner: Inner }\nexport interface Inner { readonly n: number }\nexport interface Result { readonly ok: boolean }\nexport interface Hidden { readonly x: number }\n',
  );
  writeFileSync(
    join(dir, 'src', 'index.ts'),
    [
      "import type { Hidden, Options, Result } from './api/shapes.ts';",
      "export type { Options } from './api/shapes.ts';",
      'export function make(options: Options): Result { return { ok: options.inner.n > 0 }; }',
      'export class Thing { /** @internal */ constructor(readonly hidden: Hidden) {} }',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'src', 'sub.ts'), "export { make } from './index.ts';\nexport type { Inner, Options, Result } from './api/shapes.ts';\n");
  const missing = auditExportedTypes(dir, entryPoints(dir));
  assert.deepEqual(
    missing.map((m) => `${m.entry}: ${m.type} <- ${m.usedBy}`).sort(),
    [
      '.: Hidden (src/api/shapes.ts) <- Thing.hidden',
      '.: Inner (src/api/shapes.ts) <- Options.inner',
      '.: Result (src/api/shapes.ts) <- make result',
    ],
  );
});
