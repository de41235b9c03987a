// npm run build (and prepare/prepack): compiles src/ to dist/ (JavaScript, declarations, source
// maps). tsc rewrites the sources' relative `.ts` imports to `.js` in the JavaScript it emits but
// not in the declarations, which TypeScript projects of users would then refuse (TS5097), so the
// declarations' relative specifiers are rewritten here.
import { copyFileSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);

const SPECIFIER = /((?:from|import)\s*\(?\s*['"])(\.{1,2}\/[^'"]+?)\.ts(['"])/g;
let rewritten = 0;
for (const file of walk(dist)) {
  if (!file.endsWith('.d.ts')) continue;
  const text = readFileSync(file, 'utf8');
  const out = text.replace(SPECIFIER, (_, head, path, tail) => `${head}${path}.js${tail}`);
  if (out !== text) {
    writeFileSync(file, out);
    rewritten++;
  }
}
// Module hooks and thread entries written as plain JavaScript (tsc does not emit them): copied as they are.
for (const file of ['cluster/engine-imports.mjs', 'cluster/slot-bootstrap.mjs']) copyFileSync(join(root, 'src', file), join(dist, file));
console.log(`built dist/ (declarations with rewritten imports: ${rewritten})`);

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}
