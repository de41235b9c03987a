// Records between worker TaskManagers cross in their binary form. A declared type travels through
// its compiled codec and arrives equal; a record that does not fit it fails the job naming the
// operator, the edge, the field and what the value was; undeclared records whose shape changes
// midway arrive record for record as they were sent (inferred, then the schemaless fallback).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { executeJob } from '../../src/index.ts';
import { runCollecting, uniqueId } from '../fixtures/helpers.ts';
import { shaped } from '../fixtures/jobs/typed-records.ts';

const JOB = fileURLToPath(new URL('../fixtures/jobs/typed-records.ts', import.meta.url));

const run = <T>(mode: string, n: number, taskManagers = 2) => {
  const id = uniqueId(mode);
  return runCollecting<T>(id, () => executeJob({ job: JOB, args: ['--mode', mode, '--collect-id', id, '--n', String(n)], taskManagers }));
};

test('a declared struct crosses between TaskManagers through its compiled codec and arrives equal', async () => {
  const n = 4000;
  const { result, records } = await run<{ word: string; count: number }>('declared', n);
  assert.equal(result.status, 'FINISHED', result.error?.message);
  const got = records.map((r) => `${r.word}:${r.count}`).sort();
  const want = Array.from({ length: n }, (_, i) => `w${i % 50}:${i}`).sort();
  assert.deepEqual(got, want);
});

for (const taskManagers of [2, 0]) {
  const where = taskManagers === 0 ? 'in this thread (records stay objects, the type is still checked)' : 'between TaskManagers';
  test(`a record that does not fit its declared type fails the job, naming the operator, the edge, the field and the value: ${where}`, async () => {
    const { result } = await run('misfit', 4000, taskManagers);
    assert.equal(result.status, 'FAILED');
    const message = result.error?.message ?? '';
    assert.match(message, /operator uid 'to-word'/);
    assert.match(message, /edge 'To word' -> 'Sink' \(hash\)/);
    assert.match(message, /\$\.count: expected int, got string "3990"/);
  });
}

test('undeclared records whose shape changes midway arrive record for record as they were sent', async () => {
  const n = 2200;
  const { result, records } = await run<unknown>('shapes', n);
  assert.equal(result.status, 'FINISHED', result.error?.message);
  const key = (r: unknown) => (Array.isArray(r) ? (r[0] as number) : (r as { id: number }).id);
  const got = [...records].sort((a, b) => key(a) - key(b));
  assert.equal(got.length, n);
  for (let i = 0; i < n; i++) assert.deepEqual(got[i], shaped(i), `record ${i}`);
});
