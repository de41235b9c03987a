// `weir config` lists every configuration key the engine accepts, with its default and meaning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONFIG_OPTIONS } from '../../src/config/configuration.ts';
import { weir, weirEnv } from '../fixtures/weir-process.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

test('weir config lists every key with its default and doc, as text and as JSON', async (t) => {
  const dir = makeTempDir('config-command');
  t.after(() => removeDir(dir));
  const json = await weir(['config', '--json'], weirEnv(dir));
  assert.equal(json.code, 0, json.stderr);
  const rows = JSON.parse(json.stdout) as Array<{ key: string; default: string; doc: string }>;
  assert.deepEqual(rows.map((r) => r.key), Object.keys(CONFIG_OPTIONS));
  assert.deepEqual(rows.find((r) => r.key === 'heartbeat.timeout'), { key: 'heartbeat.timeout', default: '50 s', doc: CONFIG_OPTIONS['heartbeat.timeout'].doc });
  const text = await weir(['config'], weirEnv(dir));
  for (const key of Object.keys(CONFIG_OPTIONS)) assert.ok(text.stdout.includes(`\n${key} = `) || text.stdout.startsWith(`${key} = `), `${key} is listed`);
});
