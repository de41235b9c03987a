import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FileRenameError } from '../../src/fs/file-rename-error.ts';
import { renameFile } from '../../src/fs/rename-file.ts';
import { makeTempDir, removeDir } from '../fixtures/recovery-helpers.ts';

test('a rename that fails names both paths and keeps the OS error', async (t) => {
  const dir = makeTempDir('rename-file');
  t.after(() => removeDir(dir));
  const from = join(dir, 'a');
  const to = join(dir, 'b');
  await assert.rejects(renameFile(from, to), (e: unknown) => e instanceof FileRenameError && e.from === from && e.to === to && e.code === 'ENOENT' && e.message.includes(from) && e.message.includes(to));
});
