// Short writes for real: a child process with a file size limit of 4096 bytes, where write(2)
// writes what fits and the next call fails with EFBIG; and /dev/full, where every write fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { writeFullySync } from '../../src/fs/write-fully.ts';
import { FileWriteError } from '../../src/fs/file-write-error.ts';
import { makeTempDir, removeDir, REPO_ROOT } from '../fixtures/recovery-helpers.ts';

const SCENARIO = join(REPO_ROOT, 'test', 'fixtures', 'scenarios', 'short-writes.ts');

test('a write cut short by the file size limit fails with how far it got; _metadata is not left behind', (t) => {
  const dir = makeTempDir('short-writes');
  t.after(() => removeDir(dir));
  const r = spawnSync('sh', ['-c', `trap '' XFSZ; ulimit -f 8; exec "${process.execPath}" --import tsx "${SCENARIO}" "${dir}"`], { cwd: REPO_ROOT, encoding: 'utf8' });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, `the scenario printed no result: ${r.stderr}`);
  const { sync, async, metadata } = JSON.parse(line.slice(7));
  assert.equal(sync.ok, false);
  assert.equal(sync.name, 'FileWriteError');
  // The second write got 1096 bytes in before the limit, then EFBIG.
  assert.equal(sync.written, 1096);
  assert.equal(sync.code, 'EFBIG');
  assert.match(sync.message, /^writing \S+sync at byte 3000 failed after 1096 of 3000 bytes: EFBIG/);
  assert.equal(async.ok, false);
  assert.equal(async.written, 4096);
  assert.match(async.message, /at byte 0 failed after 4096 of 6000 bytes: EFBIG/);
  assert.equal(metadata.ok, false, 'a _metadata that did not fit is not reported written');
  assert.match(metadata.message, /_metadata\.tmp-\d+ at byte 20 failed after 4076 of \d+ bytes/);
  assert.ok(!existsSync(join(dir, 'chk-1', '_metadata')), 'no _metadata was put in place');
  assert.ok(!existsSync(join(dir, 'chk-1', `_metadata.tmp-${r.pid}`)), 'the temporary file was removed');
});

test('a write that writes nothing (a full device) is an error naming the file and offset', () => {
  const fd = openSync('/dev/full', 'w');
  try {
    assert.throws(
      () => writeFullySync(fd, Buffer.from('hello\n'), { path: '/dev/full', offset: 42 }),
      (e: unknown) => e instanceof FileWriteError && e.code === 'ENOSPC' && e.written === 0 && /^writing \/dev\/full at byte 42 failed after 0 of 6 bytes/.test(e.message),
    );
  } finally {
    closeSync(fd);
  }
});
