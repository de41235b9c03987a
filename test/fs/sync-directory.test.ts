import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DirectorySyncError } from '../../src/fs/directory-sync-error.ts';
import { syncDirectory } from '../../src/fs/sync-directory.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

test('an fsync of a directory that cannot be opened names the directory and keeps the OS error', async (t) => {
  const dir = makeTempDir('sync-directory');
  t.after(() => removeDir(dir));
  await syncDirectory(dir);
  const missing = join(dir, 'gone');
  await assert.rejects(syncDirectory(missing), (e: unknown) => e instanceof DirectorySyncError && e.path === missing && e.code === 'ENOENT' && (e.cause as NodeJS.ErrnoException).code === 'ENOENT' && e.message.includes(missing));
});
