// State far larger than the heap: a keyed job in a weir process whose heap is limited to 64 MB
// holds about 256 MB of keyed state (4x the limit) on the lmdb backend, checkpointing all of it
// as it grows, and reads every value back exactly. The same job on the heap backend runs out of
// memory: the limit is real.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';
import { spawnWeir } from '../../fixtures/weir-process.ts';

const JOB = join(import.meta.dirname, '..', '..', 'fixtures', 'jobs', 'large-keyed-state.ts');
const HEAP_MB = 64;
// 460,000 values of 600 bytes: 276 MB, over 4x the 64 MB (2^20 bytes) heap limit.
const KEYS = 460_000;
const VALUE_BYTES = 600;

let root: string;
before(() => {
  root = makeTempDir('larger-than-heap');
});
after(() => removeDir(root));

function run(backend: 'heap' | 'lmdb', output: string) {
  return spawnWeir(
    [
      'run', JOB,
      '-D', 'rest.port=0',
      '-D', `state.backend.type=${backend}`,
      '-D', 'state.backend.lmdb.cache-entries=2000',
      '-D', `state.backend.lmdb.localdir=${join(root, 'local')}`,
      '-D', `execution.checkpointing.dir=${join(root, `checkpoints-${backend}`)}`,
      '-D', 'restart-strategy.type=none',
      '--', '--keys', String(KEYS), '--value-bytes', String(VALUE_BYTES), '--output', output, '--checkpoint-interval', '3000',
    ],
    { NODE_OPTIONS: `--max-old-space-size=${HEAP_MB}` },
  );
}

test(`about ${Math.round((KEYS * VALUE_BYTES) / 2 ** 20)} MB of keyed state in a ${HEAP_MB} MB heap on the lmdb backend: every value reads back exactly`, { timeout: 900_000 }, async () => {
  const output = join(root, 'lmdb.json');
  const p = run('lmdb', output);
  assert.equal(await p.finished(880_000), 0, p.tail());
  const result = JSON.parse(readFileSync(output, 'utf8')) as { ok: number; bad: number; firstBad: unknown };
  assert.deepEqual(result, { ok: KEYS, bad: 0, firstBad: null });
  // What was read back exactly, not what was asked for: the values held at once in the 64 MB heap's process.
  assert.ok(result.ok * VALUE_BYTES >= 4 * HEAP_MB * 2 ** 20, `${result.ok * VALUE_BYTES} bytes of state read back: at least 4x the heap limit`);
});

test(`the same job on the heap backend does not fit a ${HEAP_MB} MB heap`, { timeout: 600_000 }, async () => {
  const output = join(root, 'heap.json');
  const p = run('heap', output);
  assert.notEqual(await p.finished(580_000), 0, 'the heap backend held the state in a heap it should not fit: the limit did not apply');
  assert.equal(existsSync(output), false);
});
