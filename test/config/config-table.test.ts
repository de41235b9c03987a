// The README's configuration table is the one scripts/config-table.ts prints from CONFIG_OPTIONS:
// a key added or changed in the code without the README (or the other way round) fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../fixtures/recovery-helpers.ts';

test("the README's configuration table is the generated one", () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/config-table.ts'], { cwd: REPO_ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const generated = r.stdout.trim();
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('| Key | Default | Meaning |');
  assert.ok(start !== -1, 'the README has a configuration table');
  const end = readme.indexOf('\n\n', start);
  assert.equal(readme.slice(start, end === -1 ? undefined : end), generated, 'run node --import tsx scripts/config-table.ts and paste its output into the README');
});
