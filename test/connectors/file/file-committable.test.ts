// A FileSink committable commits where it was written, whatever the sink's directory now; a moved
// output with its pending files commits in the sink's directory; a file found nowhere is a
// PendingFileMissingError (unrecoverable) naming both directories. Bare names (older checkpoints)
// are the sink directory's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitPending, PendingFileMissingError } from '../../../src/connectors/file/index.ts';
import { FileRenameError } from '../../../src/fs/file-rename-error.ts';
import { makeTempDir, removeDir } from '../../fixtures/recovery-helpers.ts';

const NAME = '.part-0-0123abcda0-0.pending';

function dirs(t: { after: (f: () => void) => void }): { written: string; sink: string } {
  const root = makeTempDir('file-committable');
  t.after(() => removeDir(root));
  const written = join(root, 'written');
  const sink = join(root, 'sink');
  mkdirSync(written);
  mkdirSync(sink);
  return { written, sink };
}

test('a committable is committed in the directory it was written in, not the sink directory', (t) => {
  const { written, sink } = dirs(t);
  writeFileSync(join(written, NAME), 'a\n');
  commitPending({ directory: written, name: NAME }, sink);
  assert.ok(existsSync(join(written, 'part-0-0123abcda0-0')));
  assert.ok(!existsSync(join(written, NAME)));
  commitPending({ directory: written, name: NAME }, sink);
  assert.ok(!existsSync(join(sink, 'part-0-0123abcda0-0')), 'committed again: a no-op, nothing in the sink directory');
});

test('a commit whose rename fails for another reason than a missing file: FileRenameError naming both paths', (t) => {
  const { written, sink } = dirs(t);
  writeFileSync(join(written, NAME), 'a\n');
  // The committed name is taken by a directory that is not empty: the rename cannot replace it.
  mkdirSync(join(written, 'part-0-0123abcda0-0'));
  writeFileSync(join(written, 'part-0-0123abcda0-0', 'x'), '');
  assert.throws(
    () => commitPending({ directory: written, name: NAME }, sink),
    (e: unknown) => e instanceof FileRenameError && e.from === join(written, NAME) && e.to === join(written, 'part-0-0123abcda0-0') && e.code === 'EISDIR',
  );
  assert.ok(existsSync(join(written, NAME)), 'the pending file is still there for a retry');
});

test('an output directory moved with its pending files: committed in the sink directory', (t) => {
  const { written, sink } = dirs(t);
  writeFileSync(join(sink, NAME), 'a\n');
  commitPending({ directory: written, name: NAME }, sink);
  assert.ok(existsSync(join(sink, 'part-0-0123abcda0-0')));
});

test('a pending file found nowhere: PendingFileMissingError, unrecoverable, naming both directories', (t) => {
  const { written, sink } = dirs(t);
  assert.throws(
    () => commitPending({ directory: written, name: NAME }, sink),
    (e: unknown) =>
      e instanceof PendingFileMissingError &&
      e.unrecoverable &&
      e.writtenIn === written &&
      e.sinkDirectory === sink &&
      e.message.includes(`${NAME} of the restored checkpoint is neither pending nor committed in ${written}, where it was written, nor in ${sink}, the sink's directory now`),
  );
});

test('a bare name of an older checkpoint: committed in the sink directory, or an error saying where it was looked for', (t) => {
  const { sink } = dirs(t);
  writeFileSync(join(sink, NAME), 'a\n');
  commitPending(NAME, sink);
  assert.ok(existsSync(join(sink, 'part-0-0123abcda0-0')));
  assert.throws(
    () => commitPending('.part-1-0123abcda0-0.pending', sink),
    (e: unknown) => e instanceof PendingFileMissingError && e.unrecoverable && e.writtenIn === undefined && e.message.includes(`in ${sink} (the sink's directory: the checkpoint, of an older weir, does not say where it was written)`),
  );
});
