// Runs the test files under test/ with node's own test runner, TypeScript loaded through tsx.
// Usage: node scripts/run-tests.mjs [--long] [filter...]   (filters match file paths)
// `*.long.test.ts` files are the heavy scenario tests: only `--long` (npm run test:long) runs them,
// so that `npm test` stays within about fifteen minutes on a 2-core machine.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'fixtures' ? [] : find(p);
    return p.endsWith('.test.ts') ? [p] : [];
  });
}

const args = process.argv.slice(2);
const long = args.includes('--long');
const filters = args.filter((a) => a !== '--long');
const files = find('test')
  .sort()
  .filter((f) => f.endsWith('.long.test.ts') === long)
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  // The long suite may be empty; a filter that matches nothing is a mistake.
  console.error(`no ${long ? 'long ' : ''}test files matched`);
  process.exit(long && filters.length === 0 ? 0 : 1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const drain = join(import.meta.dirname, 'exit-after-drain.mjs');
const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', drain, '--conditions=weir-source', '--test', '--test-force-exit', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);
