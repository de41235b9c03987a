// `weir verify` as a user runs it: a real child process running the job twice (without and with
// injected failures), comparing every committed file under the output directory, recursively.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { weir, weirEnv } from '../fixtures/weir-process.ts';

const JOB = 'test/fixtures/jobs/two-outputs.ts';

async function verify(jobArgs: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const root = mkdtempSync(join(tmpdir(), 'weir-verify-test-'));
  try {
    return await weir(['verify', JOB, '-p', '2', '--failures', '2', '--', '--output', 'out', ...jobArgs], weirEnv(root), 120_000);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** The number of lines a `committed output <dir>/: identical (N lines)` line reports. */
function identicalLines(stdout: string, dir: string): number {
  const m = new RegExp(`committed output ${dir}/: identical \\((\\d+) lines\\)`).exec(stdout);
  assert.ok(m, `no 'committed output ${dir}/: identical' line in:\n${stdout}`);
  return Number(m[1]);
}

test('verify compares the committed files in every subdirectory of the output', { timeout: 150_000 }, async () => {
  const r = await verify([]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  // 40,000 numbers: one running sum per number, and every seventh number in late/.
  assert.equal(identicalLines(r.stdout, 'sums'), 40_000);
  assert.equal(identicalLines(r.stdout, 'late'), Math.ceil(40_000 / 7));
  assert.match(r.stdout, /exactly-once: verified/);
});

test('verify finds output doubled by a sink without transactions in a subdirectory', { timeout: 150_000 }, async () => {
  const r = await verify(['--late-sink', 'plain']);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /committed output late\/: differs \((\d+) vs (\d+) lines/);
  assert.match(r.stdout, /exactly-once: NOT verified/);
});

test('verify fails when the output argument names a directory the job writes nothing to', { timeout: 150_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'weir-verify-test-'));
  try {
    // The job's --output is not the argument verify replaces: its files land elsewhere.
    const r = await weir(['verify', JOB, '-p', '2', '--failures', '1', '--output-arg', 'target', '--', '--target', 'unused', '--output', join(root, 'elsewhere')], weirEnv(root), 120_000);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /committed output: nothing compared/);
    assert.match(r.stdout, /exactly-once: NOT verified/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('verify says when the keyed state it compared is empty', { timeout: 150_000 }, async () => {
  const r = await verify(['--sums', 'none']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /state: empty \(no keyed state/);
  assert.equal(identicalLines(r.stdout, 'late'), Math.ceil(40_000 / 7));
});
