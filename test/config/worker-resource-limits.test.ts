// taskmanager.memory.young-generation.size reaches the V8 heap of every TaskManager worker thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { executeJob } from '../../src/index.ts';
import { ConfigError } from '../../src/config/config-error.ts';
import { runCollecting } from '../fixtures/helpers.ts';

const JOB = fileURLToPath(new URL('../fixtures/jobs/heap-limits.ts', import.meta.url));

async function limitsSeen(id: string, config: Record<string, unknown>): Promise<Array<number | null>> {
  const { result, records } = await runCollecting<number | null>(id, () =>
    executeJob({ job: JOB, args: ['--collect-id', id, '--records', '8'], config: { 'parallelism.default': 2, ...config }, taskManagers: 2 }),
  );
  assert.equal(result.status, 'FINISHED', result.error?.message);
  assert.equal(records.length, 8);
  return records;
}

test('worker TaskManager threads get the default young generation (192mb, not Node’s 48mb)', { timeout: 60_000 }, async () => {
  assert.deepEqual(new Set(await limitsSeen('limits-default', {})), new Set([192]));
});

test('taskmanager.memory.young-generation.size sets it', { timeout: 60_000 }, async () => {
  assert.deepEqual(new Set(await limitsSeen('limits-64', { 'taskmanager.memory.young-generation.size': '64mb' })), new Set([64]));
});

test('a size that is not whole megabytes is refused, naming the key', async () => {
  await assert.rejects(
    executeJob({ job: JOB, config: { 'taskmanager.memory.young-generation.size': '9000kb' }, taskManagers: 1 }),
    (e: unknown) => e instanceof ConfigError && e.message.includes('taskmanager.memory.young-generation.size') && e.message.includes('whole number of megabytes'),
  );
});
